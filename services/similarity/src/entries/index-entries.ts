import type { Client } from '@elastic/elasticsearch';
import { AppError, type similarityV1 } from '@kb/common';
import type { EmbeddingCache } from '../embedding-cache';
import type { IndexManager } from '../indices/index-manager';
import { ENTRY_VECTOR_PATH } from '../indices/mappings';
import { bulkWrite, type IndexResult } from '../indexing';
import { MAX_DOCUMENTS_PER_CALL, resolveTarget } from '../products/index-products';
import { toStored } from '../vectors';

type Entry = similarityV1.EntryDocument__Output;

/** The text an entry is embedded from: title, summary, content and similarity_text. */
export function entryVectorText(e: Entry): string {
  return [e.title, e.summary, e.content, e.similarity_text]
    .map((s) => (s ?? '').trim())
    .filter((s) => s !== '')
    .join('\n\n');
}

function problem(e: Entry, tenantId: string | undefined): string | undefined {
  if (!e.id) return 'id is required';
  if (!e.tenant_id) return 'tenant_id is required';
  if (tenantId !== undefined && e.tenant_id !== tenantId) return 'tenant_id is not the caller tenant';
  if (!/^\d+$/.test(String(e.version)) || Number(e.version) < 1) return 'version must be a positive integer';
  if (!e.visibility) return 'visibility is required';
  if (!e.title?.trim() && !e.content?.trim()) return 'title or content is required';
  return undefined;
}

export async function indexEntries(
  deps: { es: Client; indices: IndexManager; cache: EmbeddingCache },
  req: similarityV1.IndexEntriesRequest__Output,
  tenantId: string | undefined,
): Promise<IndexResult[]> {
  if (req.entries.length > MAX_DOCUMENTS_PER_CALL) {
    throw AppError.invalid([{ loc: ['entries'], msg: `At most ${MAX_DOCUMENTS_PER_CALL} entries per call`, type: 'too_long' }]);
  }
  await deps.indices.ensure('entries');
  const target = await resolveTarget(deps, 'entries', req.target_index);
  const results = new Map<string, IndexResult>();
  const valid: Entry[] = [];
  for (const e of req.entries) {
    const error = problem(e, tenantId);
    if (error) results.set(e.id, { id: e.id, status: 'failed', embeddings: '', error });
    else valid.push(e);
  }
  const vectors = await deps.cache.vectors(valid.map(entryVectorText));
  const opt = (v: string | null | undefined) => (v === undefined || v === null || v === '' ? undefined : v);
  const written = await bulkWrite(
    deps.es,
    target,
    valid.map((e, i) => ({
      id: e.id,
      version: Number(e.version),
      sources: [vectors[i]!.origin],
      doc: {
        tenant_id: e.tenant_id,
        visibility: e.visibility,
        owner_user_id: opt(e.owner_user_id),
        workspace_id: opt(e.workspace_id),
        type: e.type,
        category_id: opt(e.category_id),
        language: opt(e.language),
        layer: opt(e.layer),
        tags: e.tags,
        title: e.title,
        summary: opt(e.summary),
        content: e.content,
        similarity_text: opt(e.similarity_text),
        search_keywords: e.search_keywords,
        updated_at: opt(e.updated_at),
        version: Number(e.version),
        [ENTRY_VECTOR_PATH]: toStored(vectors[i]!.vector),
      },
    })),
  );
  for (const r of written) results.set(r.id, r);
  return req.entries.map((e) => results.get(e.id)!);
}
