import { LRUCache } from 'lru-cache';
import type { Caller } from '@kb/platform';
import type { Backends } from '../clients/backends';

/** Query texts whose embedding is kept (384 floats each: ~1.5 MB at most); a model change restarts the gateway. */
const QUERY_VECTORS_KEPT = 1_000;

/** A query text's embedding. */
export type QueryVector = (caller: Caller, query: string) => Promise<Float32Array>;

/** The query's embedding by the similarity service's model (kept for repeated queries). */
export function queryVectors(backends: Backends): QueryVector {
  const vectors = new LRUCache<string, Float32Array>({ max: QUERY_VECTORS_KEPT });
  return async (caller, query) => {
    const kept = vectors.get(query);
    if (kept) return kept;
    const res = await backends.similarity.call('Embed', { caller, texts: [query] });
    const vector = Float32Array.from(res.vectors[0]?.values ?? []);
    vectors.set(query, vector);
    return vector;
  };
}
