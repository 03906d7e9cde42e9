import type { Client } from '@elastic/elasticsearch';
import { AppError, type similarityV1 } from '@kb/common';
import type { IndexManager } from '../data-access/index-manager';
import { ENTRY_SEARCH, entryFilter } from '../data-access/search-queries';
import { readCaller } from './callers';
import type { EmbeddingCache } from './embedding-cache';
import { hybridSearch, searchRequest, type HybridHit } from './hybrid-search';

/** SearchEntries: hybrid search over the tenant's entries the caller's visibility filter lets it see. */
export async function searchEntries(
  deps: { es: Client; indices: IndexManager; cache: EmbeddingCache },
  req: similarityV1.SearchEntriesRequest__Output,
): Promise<HybridHit[]> {
  const { tenantId } = readCaller(req.caller);
  const { query, limit } = searchRequest(req);
  if (!req.visibility) throw AppError.invalid([{ loc: ['visibility'], msg: 'visibility filter is required', type: 'missing' }]);
  const filter = entryFilter(tenantId, { ...req, visibility: req.visibility });
  await deps.indices.ensure('entries');
  return hybridSearch(deps, { index: deps.indices.alias('entries'), query, limit, filter, fields: ENTRY_SEARCH });
}
