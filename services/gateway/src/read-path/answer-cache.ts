/**
 * Similar-search answers kept, counted in hits (SIMILAR_CACHE_HITS): an answer is given again
 * while the products index has not been written or refreshed since it was searched (IndexWatch in
 * read-path.ts, read every INDEX_WATCH_MS) and no write came through this gateway for its tenant.
 * 20,000 hits are the answers of 2,000 similar searches of limit 10 (~1 KB of heap per hit).
 */
export const SIMILAR_CACHE_HITS_DEFAULT = 20_000;
