import type { Caller, knowledgeV1 } from '@kb/platform';
import { answerItemBytes, withinBudget } from '@kb/rules';
import {
  DEFAULT_PASSAGES,
  SEARCH_DEFAULT_LIMIT,
  elasticsearchErrorType,
  searchEntryIndex,
  type ElasticsearchClient,
  type RankedEntryHit,
} from '@kb/search';
import type { Backends } from '../clients/backends';
import { currentHits, visibilityFilter } from './entry-access';
import { EntryConfirmations } from './entry-confirmations';
import { passagesOf, readHits, type Found } from './entry-reads';
import type { DescribeModel } from './similarity-model';

/** The entry search as the gateway sends it to the knowledge service (the site already resolved to its id). */
export type EntrySearchRequest = knowledgeV1.SearchEntriesRequest;

/** What the entry search reads: the index, the knowledge service, the similarity service's model and query vectors. */
interface EntrySearchDeps {
  es: ElasticsearchClient;
  backends: Backends;
  describe: DescribeModel;
  queryVector: (caller: Caller, query: string) => Promise<Float32Array>;
}

/**
 * Entry search answered in the gateway from the index (docs/architecture.md, "The read path"):
 * the similarity service's search (searchEntryIndex of @kb/search), then one read of the hits'
 * kept fields. MongoDB stays the truth: every hit's version is checked against the version
 * MongoDB holds (at most ENTRY_CONFIRMED_MS old), and a hit the index holds in another version,
 * or one still being indexed, sends the whole search to the knowledge service, which reads
 * MongoDB. So a visibility change is never answered from a stale index.
 */
export function entrySearch(deps: EntrySearchDeps) {
  const confirmations = new EntryConfirmations();
  return {
    search: (caller: Caller, req: EntrySearchRequest) => searchEntries(deps, confirmations, caller, req),
    /** A write through this gateway: the tenant's filters and confirmed versions count no more. */
    forgetTenant(tenantId: string): void {
      confirmations.forgetTenant(tenantId);
    },
  };
}

/**
 * The search answered from the index; undefined when the index cannot answer it alone (no
 * entries alias named, no index yet, a hit not current): then ask the knowledge service.
 */
async function searchEntries(
  deps: EntrySearchDeps,
  confirmations: EntryConfirmations,
  caller: Caller,
  req: EntrySearchRequest,
): Promise<knowledgeV1.EntrySearchHit__Output[] | undefined> {
  const { es, backends } = deps;
  const model = await deps.describe(caller);
  const index = model.entries_alias;
  if (!index) return undefined;
  const query = (req.query ?? '').trim();
  const limit = req.limit || SEARCH_DEFAULT_LIMIT;
  const passages = req.passages ?? DEFAULT_PASSAGES;
  const min = Number(req.min_relevance ?? 0);
  const withContent = req.include_content !== false;
  // The caller's visibility first (the knowledge service), then the query's vector (the model):
  // a caller the knowledge service cannot place costs no embedding.
  const visibility = await visibilityFilter(backends, confirmations, caller);
  const queryVector = await deps.queryVector(caller, query);
  let ranked: RankedEntryHit[];
  try {
    ranked = await searchEntryIndex(es, index, {
      tenantId: caller.tenant_id,
      query,
      queryVector,
      limit,
      passages,
      language: req.language,
      modelLanguages: model.languages,
      filter: {
        visibility,
        types: req.types ?? [],
        category_id: req.category_id,
        language: req.language,
        site_id: req.site_id,
        tags: req.tags ?? [],
        updated_after: req.updated_after,
      },
    });
  } catch (err) {
    // No index yet (nothing indexed so far): the similarity service creates it on the gRPC path.
    if (elasticsearchErrorType(err) === 'index_not_found_exception') return undefined;
    throw err;
  }
  ranked = ranked.filter((h) => h.relevance >= min);
  if (ranked.length === 0) return [];
  const read = await readHits(es, index, ranked, withContent || passages > 0);
  const found = read && (await currentHits(backends, confirmations, caller, read));
  if (!found) return undefined;
  return answerOf(found, query, passages, withContent);
}

/**
 * The answer's hits: expired entries left out, passages cut; undefined when a hit's passages
 * lie outside its content (the knowledge service answers then).
 */
function answerOf(
  found: Found[],
  query: string,
  passages: number,
  withContent: boolean,
): knowledgeV1.EntrySearchHit__Output[] | undefined {
  const now = Date.now();
  const hits: knowledgeV1.EntrySearchHit__Output[] = [];
  for (const f of found) {
    if (f.hit.expires_at && Date.parse(f.hit.expires_at) <= now) continue;
    const cut = passagesOf(f, query, passages);
    if (!cut) return undefined;
    hits.push({
      entry: { ...f.hit.entry, content: withContent ? f.content : '' },
      score: f.ranked.score,
      score_sources: f.ranked.score_sources,
      relevance: f.ranked.relevance,
      passages: cut,
    });
  }
  // The best hits that fit the answer's byte budget (at least the best one), as SearchEntries answers.
  return withinBudget(hits, answerItemBytes);
}
