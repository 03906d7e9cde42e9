import { trace } from '@opentelemetry/api';
import {
  AppError,
  requireScope,
  type Caller,
  type catalogV1,
  type DependencyWatch,
  type similarityV1,
} from '@kb/platform';
import {
  similarAnchorsOf,
  similarSearchOf,
  elasticsearchErrorType,
  readAnchorVersions,
  similarProducts,
  type SimilarAnswer,
} from '@kb/search';
import type { AnswerCache, SimilarReadAnswer } from './answer-cache';
import { readAnchorsAhead, type ReadAheadState } from './anchor-read-ahead';
import { HIT_FIELDS } from './hit-sources';
import type { SiteId } from './site-ids';
import { productsAlias, type DescribeModel } from './similarity-model';

/** What a similar search reads and keeps (read-path.ts makes one for the gateway). */
export interface SimilarSearchState extends ReadAheadState {
  /** The gateway's own watch of Elasticsearch: known down, a search is a 503 at once. */
  esWatch: DependencyWatch;
  describe: DescribeModel;
  siteId: SiteId;
  answers: AnswerCache;
}

const noAnchor = () => AppError.notFound('None of the anchor products was found');

/** The similar search answered from the index; undefined when the index cannot answer it alone (then ask the catalog). */
export async function similarSearch(
  state: SimilarSearchState,
  caller: Caller,
  req: catalogV1.SimilarProductsRequest,
): Promise<SimilarReadAnswer | undefined> {
  const { es, watches, anchors, hitSources, answers } = state;
  // The services' rule, kept here: a search needs knowledge:read (a write-only token gets 403).
  requireScope(caller, 'knowledge:read');
  state.esWatch.assertUp();
  const index = await productsAlias(state.describe, caller);
  if (!index) return undefined; // a similarity service that does not name its aliases
  watches.watched = index;
  const watched = watches.of(index);
  void watched.touch();
  // The same question asked again while the index is as it was searched: the same answer.
  const before = watched.state();
  const key = answers.keyOf(caller, index, req);
  const given = key === undefined ? undefined : answers.get(key);
  if (given && before?.searchable === given.searchable) {
    trace.getActiveSpan()?.setAttribute('kb.similar.answer', 'kept');
    return given.answer;
  }
  const sent = similarAnchorsOf(req);
  const site =
    req.site_id !== undefined ? await siteOrNoAnchor(state, caller, index, req.site_id, sent.anchors) : undefined;
  // The catalog's road fills in the same defaults (similarSearchOf): the two answer alike.
  const searched: similarityV1.SimilarProductsRequest__Output = { caller: null, ...similarSearchOf(req, sent, site) };
  readAnchorsAhead(state, caller.tenant_id, index, searched.vector_field, sent.anchors);
  let answer: SimilarAnswer;
  try {
    answer = await similarProducts(
      {
        es,
        productsIndex: async () => index,
        anchorCache: anchors,
        hitFields: HIT_FIELDS,
        ...(hitSources ? { hitSources } : {}),
      },
      caller.tenant_id,
      searched,
    );
  } catch (err) {
    // No index yet (nothing indexed so far): the similarity service creates it on the gRPC path.
    if (elasticsearchErrorType(err) === 'index_not_found_exception') return undefined;
    throw err;
  }
  // A document indexed before the index kept what hits show: the catalog answers (until a reindex).
  if (answer.hits.some((h) => !h.source?.['hit'])) return undefined;
  const read: SimilarReadAnswer = {
    anchor_product_ids: answer.anchor_product_ids,
    vector_field: answer.vector_field,
    hits: answer.hits.map((h) => ({
      ...(h.source!['hit'] as catalogV1.ProductSearchHit__Output),
      score: h.score,
      score_sources: h.score_sources,
      ...(req.explain && h.explanation_json ? { explanation_json: h.explanation_json } : {}),
    })),
    explain_json: req.explain
      ? JSON.stringify({
          anchors_ignored: (req.anchor_product_ids?.length ?? 0) - answer.anchor_product_ids.length,
          filtered_out: answer.filtered_json ? (JSON.parse(answer.filtered_json) as unknown) : {},
        })
      : '',
  };
  // Kept only when the index was known as it was before and after the search: what it read is that state's.
  if (key && before && watched.state()?.searchable === before.searchable)
    answers.set(key, { searchable: before.searchable, answer: read });
  return read;
}

/** The site's id; when the site is unknown, unknown anchors are still the error answered first (as the catalog answers). */
async function siteOrNoAnchor(state: SimilarSearchState, caller: Caller, index: string, site: string, ids: string[]) {
  try {
    return await state.siteId(caller, site);
  } catch (err) {
    const found = await readAnchorVersions(state.es, index, ids);
    if (!found.some((a) => a.source['tenant_id'] === caller.tenant_id)) throw noAnchor();
    throw err;
  }
}
