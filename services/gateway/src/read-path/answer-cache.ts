import { LRUCache } from 'lru-cache';
import type { Caller, catalogV1 } from '@kb/platform';

/**
 * Similar-search answers kept, counted in hits (SIMILAR_CACHE_HITS): an answer is given again
 * while the products index has not been written or refreshed since it was searched (IndexWatch in
 * index-watch.ts, read every INDEX_WATCH_MS) and no write came through this gateway for its tenant.
 * 10,000 hits are the answers of 1,000 similar searches of limit 10 (~1 KB of heap per hit: ~10 MB
 * at most, within the chart's memory limit for the gateway).
 */
export const SIMILAR_CACHE_HITS_DEFAULT = 10_000;

/** What the index answered: hits with the product fields a search hit shows, in the catalog's message shape. */
export interface SimilarReadAnswer {
  anchor_product_ids: string[];
  vector_field: string;
  hits: catalogV1.ProductSearchHit__Output[];
  explain_json: string;
}

/** A kept answer and the index's searchable state (IndexState.searchable) it was read in. */
export interface KeptAnswer {
  searchable: string;
  answer: SimilarReadAnswer;
}

/** The kept similar-search answers: `keyOf` is undefined when none are kept (`maxHits` 0). */
export function answerCache(maxHits: number) {
  const answers =
    maxHits > 0
      ? new LRUCache<string, KeptAnswer>({
          maxSize: maxHits,
          sizeCalculation: (a) => a.answer.hits.length + 1,
        })
      : undefined;
  /** Per tenant, how many writes came through this gateway (part of a kept answer's key: a write retires its tenant's). */
  const writes = new Map<string, number>();
  return {
    /** The key of the answer to this request on this index, when answers are kept. */
    keyOf: (caller: Caller, index: string, req: catalogV1.SimilarProductsRequest): string | undefined =>
      answers &&
      JSON.stringify([caller.tenant_id, writes.get(caller.tenant_id) ?? 0, index, { ...req, caller: undefined }]),
    get: (key: string): KeptAnswer | undefined => answers?.get(key),
    set: (key: string, kept: KeptAnswer) => void answers?.set(key, kept),
    /** A write through this gateway: the tenant's kept answers are given no more. */
    forgetTenant: (tenantId: string) => void writes.set(tenantId, (writes.get(tenantId) ?? 0) + 1),
  };
}
export type AnswerCache = ReturnType<typeof answerCache>;
