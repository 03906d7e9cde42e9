import type { knowledgeV1 } from '@kb/platform';
import type { Entry } from './types';

/** An entry as the knowledge service answers it (and as the search index keeps it for the read path). */
export function entryMessage(e: Entry): knowledgeV1.Entry {
  return {
    id: e.id,
    tenant_id: e.tenant_id,
    title: e.title,
    content: e.content,
    category_id: e.category_id,
    visibility: e.visibility,
    type: e.type,
    version: e.version,
    language: e.language,
    translation_group_id: e.translation_group_id,
    source: e.source,
    ...(e.source_reference != null ? { source_reference: e.source_reference } : {}),
    ...(e.embedding_model != null ? { embedding_model: e.embedding_model } : {}),
    created_at: new Date(e.created_at).toISOString(),
    updated_at: new Date(e.updated_at).toISOString(),
    ...(e.summary != null ? { summary: e.summary } : {}),
    ...(e.layer != null ? { layer: e.layer } : {}),
    tags: e.tags ?? [],
    ...(e.workspace_id != null ? { workspace_id: e.workspace_id } : {}),
    ...(e.created_by_user_id != null ? { created_by_user_id: e.created_by_user_id } : {}),
    metadata_json: JSON.stringify(e.metadata ?? {}),
    search_keywords: e.search_keywords ?? [],
    site_ids: e.site_ids ?? [],
  };
}
