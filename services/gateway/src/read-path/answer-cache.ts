/**
 * Similar-search answers kept, counted in hits (SIMILAR_CACHE_HITS): an answer is given again
 * while the products index has not been written or refreshed since it was searched (IndexWatch in
 * read-path.ts, read every INDEX_WATCH_MS) and no write came through this gateway for its tenant.
 * 10,000 hits are the answers of 1,000 similar searches of limit 10 (~1 KB of heap per hit: ~10 MB
 * at most, within the chart's memory limit for the gateway).
 */
export const SIMILAR_CACHE_HITS_DEFAULT = 10_000;
