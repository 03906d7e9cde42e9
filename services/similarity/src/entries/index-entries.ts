import type { Client } from '@elastic/elasticsearch';
import { AppError, type similarityV1 } from '@kb/common';
import type { EmbeddingCache } from '../embedding-cache';
import type { IndexManager } from '../indices/index-manager';
import { ENTRY_VECTOR_PATH } from '../indices/mappings';
import { bulkWrite, MAX_DOCUMENTS_PER_CALL, resolveTarget, validDocuments, type IndexResult } from '../indexing';
import { toStored } from '../vectors';

type Entry = similarityV1.EntryDocument__Output;

/** The text an entry is embedded from: title, summary, content and similarity_text. */
export function entryVectorText(e: Entry): string {
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

export async function indexEntries(
  deps: { es: Client; indices: IndexManager; cache: EmbeddingCache },
  req: similarityV1.IndexEntriesRequest__Output,
  tenantId: string | undefined,
): Promise<IndexResult[]> {
  if (req.entries.length > MAX_DOCUMENTS_PER_CALL) {
    throw AppError.invalid([{ loc: ['entries'], msg: `At most ${MAX_DOCUMENTS_PER_CALL} entries per call`, type: 'too_long' }]);
  }
  const target = await resolveTarget(deps, 'entries', req.target_index);
  const alsoTo = target === deps.indices.alias('entries') ? await deps.indices.pendingTargets('entries') : [];
  const { valid, results } = validDocuments(req.entries, tenantId, problem);
  const texts = valid.map(entryVectorText);
  const embedded = await deps.cache.vectors(texts.filter((t) => t !== ''));
  let next = 0;
  const vectors = texts.map((t) => (t === '' ? undefined : embedded[next++]));
  const opt = (v: string | null | undefined) => (v === undefined || v === null || v === '' ? undefined : v);
  const written = await deps.indices.withAlias('entries', () =>
    bulkWrite(
      deps.es,
      target,
      valid.map((e, i) => ({
        id: e.id,
        version: Number(e.version),
        sources: vectors[i] ? [vectors[i].origin] : [],
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
          ...(vectors[i] ? { [ENTRY_VECTOR_PATH]: toStored(vectors[i].vector) } : {}),
        },
      })),
      alsoTo,
      { requireAlias: target === deps.indices.alias('entries') },
    ),
  );
  for (const r of written) results.set(r.id, r);
  return req.entries.map((e) => results.get(e.id)!);
}
