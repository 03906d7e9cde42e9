import { AppError, type similarityV1 } from '@kb/common';
import { ENTRY_SEARCH, entryFilter } from '../data-access/search-queries';
import { hybridSearch, searchRequest, type RankedHit } from './hybrid-search';
import type { EmbeddingDeps } from './deps';

/** SearchEntries: hybrid search over the tenant's entries the caller's visibility filter lets it see. */
export async function searchEntries(
  deps: EmbeddingDeps,
  req: similarityV1.SearchEntriesRequest__Output,
): Promise<RankedHit[]> {
  const { tenantId, query, limit } = searchRequest(req);
  if (!req.visibility)
    throw AppError.invalid([{ loc: ['visibility'], msg: 'visibility filter is required', type: 'missing' }]);
  const filter = entryFilter(tenantId, { ...req, visibility: req.visibility });
  await deps.indices.ensure('entries');
  return hybridSearch(deps, { index: deps.indices.alias('entries'), query, limit, filter, fields: ENTRY_SEARCH });
}
