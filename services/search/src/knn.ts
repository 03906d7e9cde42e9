/** kNN candidates per field at the least: generous, so recall@10 against brute force stays ≥ 0.95. */
const MIN_NUM_CANDIDATES = 200;

/** num_candidates for `k` neighbours: twice k, at least MIN_NUM_CANDIDATES, at most Elasticsearch's 10,000. */
export const numCandidates = (k: number) => Math.min(10_000, Math.max(MIN_NUM_CANDIDATES, 2 * k));

/**
 * Hits each side of a fused search (keyword and vector, or one vector field per side) returns for
 * the fusion: three times those asked, at least 30, so a hit one side ranks low can still win.
 */
export const fusionCandidates = (limit: number) => Math.max(limit * 3, 30);

/** The cosine behind a kNN hit's score: Elasticsearch scores cosine similarity as (1 + cos) / 2. */
export const cosineOfScore = (score: number | null | undefined) => 2 * (score ?? 0.5) - 1;
