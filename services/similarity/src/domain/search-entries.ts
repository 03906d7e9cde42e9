import { AppError, type similarityV1 } from '@kb/platform';
import { isDateTime } from '@kb/rules';
import { MAX_FILTER_TAGS, MAX_PASSAGES, searchEntryIndex, type RankedEntryHit } from '@kb/search';
import { searchRequest } from './hybrid-search';
import type { EmbeddingDeps } from './deps';

function checkedOptions(req: similarityV1.SearchEntriesRequest__Output) {
  const problems: { loc: string[]; msg: string; type: string }[] = [];
  if (!Number.isInteger(req.passages) || req.passages < 0 || req.passages > MAX_PASSAGES)
    problems.push({ loc: ['passages'], msg: `passages must be between 0 and ${MAX_PASSAGES}`, type: 'value_error' });
  if (req.tags.length > MAX_FILTER_TAGS)
    problems.push({ loc: ['tags'], msg: `At most ${MAX_FILTER_TAGS} tags`, type: 'too_long' });
  if (req.updated_after && !isDateTime(req.updated_after))
    problems.push({ loc: ['updated_after'], msg: 'updated_after must be an ISO 8601 date-time', type: 'value_error' });
  if (!req.visibility) problems.push({ loc: ['visibility'], msg: 'visibility filter is required', type: 'missing' });
  if (problems.length > 0) throw AppError.invalid(problems);
}

/**
 * SearchEntries: hybrid search over the passages of the tenant's entries the caller's visibility
 * filter lets it see, answered per entry with its best passages (offsets into the indexed
 * version's content; the knowledge service cuts the text from MongoDB).
 */
export async function searchEntries(
  deps: EmbeddingDeps,
  req: similarityV1.SearchEntriesRequest__Output,
  modelLanguages: readonly string[] = ['en'],
): Promise<RankedEntryHit[]> {
  const { tenantId, query, limit } = searchRequest(req);
  checkedOptions(req);
  await deps.indices.ensure('entries');
  const [queryVector] = await deps.cache.vectors([query], { persist: false });
  return searchEntryIndex(deps.es, deps.indices.alias('entries'), {
    tenantId,
    query,
    queryVector: queryVector!.vector,
    limit,
    passages: req.passages,
    language: req.language,
    modelLanguages,
    filter: { ...req, visibility: req.visibility! },
  });
}
