import type { similarityV1 } from '@kb/common';
import { ENTRY_VECTOR_PATH } from '../data-access/mappings';
import { toStored } from '../data-access/vector-encoding';
import { writeCaller } from './callers';
import type { CachedVector } from './embedding-cache';
import { indexDocuments, optional } from './index-documents';
import type { EmbeddingDeps } from './deps';

type Entry = similarityV1.EntryDocument__Output;

/** The text an entry is embedded from: title, summary, content and similarity_text. */
function entryVectorText(e: Entry): string {
  return [e.title, e.summary, e.content, e.similarity_text]
    .map((s) => (s ?? '').trim())
    .filter((s) => s !== '')
    .join('\n\n');
}

// Whitespace-only text is what MongoDB may hold (the edge asks for at least one character):
// such an entry is indexed without a vector rather than refused, so it is not lost to filters.
function problem(e: Entry): string | undefined {
  if (!e.visibility) return 'visibility is required';
  if (!e.title && !e.content) return 'title or content is required';
  return undefined;
}

/** The indexed form of an entry, with its vector when it has text. */
function entrySource(e: Entry, vector: CachedVector | undefined): Record<string, unknown> {
  return {
    tenant_id: e.tenant_id,
    visibility: e.visibility,
    owner_user_id: optional(e.owner_user_id),
    workspace_id: optional(e.workspace_id),
    type: e.type,
    category_id: optional(e.category_id),
    language: optional(e.language),
    layer: optional(e.layer),
    tags: e.tags,
    title: e.title,
    summary: optional(e.summary),
    content: e.content,
    similarity_text: optional(e.similarity_text),
    search_keywords: e.search_keywords,
    updated_at: optional(e.updated_at),
    version: Number(e.version),
    ...(vector ? { [ENTRY_VECTOR_PATH]: toStored(vector.vector) } : {}),
  };
}

/** IndexEntries: embeds (through the cache) and indexes entries with their version as the external version. */
export function indexEntries(deps: EmbeddingDeps, req: similarityV1.IndexEntriesRequest__Output) {
  const { tenantId } = writeCaller(req.caller);
  return indexDocuments(
    deps,
    { kind: 'entries', field: 'entries', docs: req.entries, targetIndex: req.target_index, tenantId },
    problem,
    async (valid) => {
      const texts = valid.map(entryVectorText);
      const embedded = await deps.cache.vectors(texts.filter((t) => t !== ''));
      let next = 0;
      const vectors = texts.map((t) => (t === '' ? undefined : embedded[next++]));
      return valid.map((e, i) => ({
        id: e.id,
        version: Number(e.version),
        sources: vectors[i] ? [vectors[i].origin] : [],
        doc: entrySource(e, vectors[i]),
      }));
    },
  );
}
