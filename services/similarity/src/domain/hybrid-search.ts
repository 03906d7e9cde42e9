import { AppError, type Caller } from '@kb/platform';
import {
  fusionCandidates,
  SEARCH_DEFAULT_LIMIT,
  hybridMatches,
  rankHybrid,
  type RankedHit,
  type SearchFields,
  type SearchFilter,
} from '@kb/search';
import { readCaller } from './callers';
import type { EmbeddingDeps } from './deps';

/**
 * Hits the similarity service answers at most, for callers that do not pass through the gateway
 * (the gateway publishes and enforces the lower SEARCH_MAX_LIMIT of @kb/search).
 */
export const DIRECT_SEARCH_MAX_LIMIT = 100;
export const MAX_QUERY_LENGTH = 1000;
/** What every search request must be: from a tenant's reader, with a query and a limit (defaulted). */
export function searchRequest(req: { caller?: Caller | null; query: string; limit: number }): {
  tenantId: string;
  query: string;
  limit: number;
} {
  const { tenantId } = readCaller(req.caller);
  const query = req.query.trim();
  if (query === '' || [...query].length > MAX_QUERY_LENGTH) {
    throw AppError.invalid([
      { loc: ['query'], msg: `query must be 1 to ${MAX_QUERY_LENGTH} characters`, type: 'value_error' },
    ]);
  }
  const limit = req.limit === 0 ? SEARCH_DEFAULT_LIMIT : req.limit;
  if (!Number.isInteger(limit) || limit < 1 || limit > DIRECT_SEARCH_MAX_LIMIT) {
    throw AppError.invalid([
      { loc: ['limit'], msg: `limit must be between 1 and ${DIRECT_SEARCH_MAX_LIMIT}`, type: 'value_error' },
    ]);
  }
  return { tenantId, query, limit };
}

/**
 * Hybrid keyword + vector search combined in code (no RRF, no scripts): the query embedded
 * (cached, not persisted), the three searches of hybridMatches, then rankHybrid.
 */
export async function hybridSearch(
  deps: Pick<EmbeddingDeps, 'es' | 'cache'>,
  options: { index: string; query: string; limit: number; filter: SearchFilter; fields: SearchFields },
): Promise<RankedHit[]> {
  const size = fusionCandidates(options.limit);
  const [queryVector] = await deps.cache.vectors([options.query], { persist: false });
  const matches = await hybridMatches(deps.es, { ...options, size, queryVector: queryVector!.vector });
  return rankHybrid(matches, options.limit);
}
