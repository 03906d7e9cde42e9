import type { Client } from '@elastic/elasticsearch';
import { entryMatches, entrySearchBodies } from './entry-queries';
import { fusionCandidates } from './knn';
import { rankEntries, readQuestion, type RankedEntryHit } from './entry-ranking';
import { entryFilter } from './search-queries';

/** An entry search as both roads ask it: the similarity service's SearchEntries and the gateway's read path. */
export interface EntryQuestion {
  tenantId: string;
  query: string;
  /** The query's vector, from the model that embedded the index. */
  queryVector: Float32Array;
  limit: number;
  /** Passages per hit (0: none). */
  passages: number;
  /** The language the caller named (read in it), if any. */
  language?: string | null;
  /** The languages the model reads (DescribeModel): the question is ranked as semantic in those. */
  modelLanguages: readonly string[];
  /** The caller's visibility and the request's filters. */
  filter: Parameters<typeof entryFilter>[1];
}

/**
 * One entry search over `index`: the question read in its language, the keyword and vector
 * searches with their passages, the fused ranking. Relevance is computed, not applied: the callers
 * leave out what is below their `min_relevance`.
 */
export async function searchEntryIndex(es: Client, index: string, q: EntryQuestion): Promise<RankedEntryHit[]> {
  const { profile, terms } = readQuestion(q.query, q.language, q.modelLanguages);
  const bodies = entrySearchBodies({
    query: q.query,
    ...terms,
    size: fusionCandidates(q.limit),
    // Two more per side than asked (the profile may read more): the fusion picks the best of both sides' candidates.
    passagesPerHit: q.passages > 0 ? q.passages + 2 : 0,
    reading: profile.passageChoice,
    filter: entryFilter(q.tenantId, q.filter),
    queryVector: q.queryVector,
  });
  return rankEntries(await entryMatches(es, index, bodies), q.limit, q.passages, profile);
}
