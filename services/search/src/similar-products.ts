import {
  PRODUCT_VECTOR_FIELDS,
  SIMILAR_DEFAULT_LIMIT,
  SIMILAR_MAX_LIMIT,
  SIMILAR_MIN_SCORE_RANGE,
  VECTOR_FIELD_CHOICES,
  type ProductVectorField,
  type VectorFieldChoice,
} from './search-defaults';
import { AppError, type similarityV1 } from '@kb/platform';
import { FIELD_LIMITS } from '@kb/rules';
import {
  knnNeighbours,
  readAnchors,
  readAnchorVersions,
  type SimilarFilter,
  type StoredProduct,
} from './similar-queries';
import type { Client } from '@elastic/elasticsearch';
import type { HitSources } from './hit-sources';
import { productVectorPath } from './mappings';
import { fusionCandidates } from './knn';
import {
  anchorWeights,
  centroidsPerField,
  family,
  fieldRanks,
  fieldWeights,
  filteredCounts,
  scoreCandidate,
  selectHits,
  type Candidate,
  unseenScoreCeiling,
  type FieldWeights,
} from './similar-scoring';

const MAX_ANCHORS = 100;
/**
 * kNN neighbours per field of one round, at most: the bound on the work one request can cause
 * (rounds of 50 → 200 → 500 at the most, each with num_candidates 2k; hybrid reads 3 × k hits
 * with their vectors). 500 is 10× the largest limit: room for families collapsed away.
 */
export const MAX_CANDIDATES = 500;
/** exclude_product_ids the service takes (the gateway's bound, plus the anchors the catalog adds). */
const MAX_EXCLUDED = FIELD_LIMITS.excludeIds + MAX_ANCHORS;

type Request = similarityV1.SimilarProductsRequest__Output;

/** A similar search's hit: its id, score, each field's contribution, and with explain why it ranked. */
export interface RankedHit {
  id: string;
  score: number;
  score_sources: Record<string, number>;
  explanation_json: string;
  /** The `_source` fields asked for by SimilarDeps.hitFields. */
  source?: Record<string, unknown>;
}

/** Best score first; equal scores by id, so an answer's order never depends on the index's. */
export const byScoreThenId = (a: { id: string; score: number }, b: { id: string; score: number }) =>
  b.score - a.score || (a.id < b.id ? -1 : 1);

/**
 * Anchors' vectors kept between searches, by product id with the version they were read at. A
 * kept anchor is used as it is while the index confirmed its version recently (`confirmed`);
 * otherwise only after the index confirms it again, read beside the search.
 */
export interface AnchorCache {
  get(id: string): StoredProduct | undefined;
  /** Keeps the anchor as read now (its version just confirmed). */
  set(anchor: StoredProduct): void;
  delete(id: string): void;
  /** The kept version was confirmed by the index recently enough to be used without asking. */
  confirmed(id: string): boolean;
  /** The index confirmed the kept version now. */
  confirm(id: string): void;
}

/** What a similar search reads the index through. */
export interface SimilarDeps {
  es: Client;
  /** The products alias (the similarity service creates it on first need). */
  productsIndex(): Promise<string>;
  /** Absent: every search reads its anchors' vectors. */
  anchorCache?: AnchorCache;
  /** `_source` fields each hit carries back in RankedHit.source. */
  hitFields?: readonly string[];
  /** Hits' sources kept by version (one field searched): see HitSources. */
  hitSources?: HitSources;
}

/** What the centroids and field weights make of the anchors: the input of every kNN round. */
interface Plan {
  index: string;
  centroids: Map<ProductVectorField, Float64Array>;
  fields: ProductVectorField[];
  weights: Map<ProductVectorField, number>;
}

const invalid = (loc: string, msg: string) => AppError.invalid([{ loc: [loc], msg, type: 'value_error' }]);
const finiteNonNegative = (x: number) => Number.isFinite(x) && x >= 0;

/** The request's bounds checked (in the order callers see the errors) and its defaults filled in. */
function similarRequest(req: Request): {
  limit: number;
  mode: VectorFieldChoice;
  requested: FieldWeights;
  minScore: number | undefined;
} {
  const limit = req.limit === 0 ? SIMILAR_DEFAULT_LIMIT : req.limit;
  if (!Number.isInteger(limit) || limit < 1 || limit > SIMILAR_MAX_LIMIT)
    throw invalid('limit', `limit must be between 1 and ${SIMILAR_MAX_LIMIT}`);
  const mode = req.vector_field;
  if (!(VECTOR_FIELD_CHOICES as readonly string[]).includes(mode))
    throw invalid('vector_field', `vector_field must be one of ${VECTOR_FIELD_CHOICES.join(', ')}`);
  const anchorIds = req.anchor_product_ids;
  if (anchorIds.length === 0 || anchorIds.length > MAX_ANCHORS)
    throw invalid('anchor_product_ids', `Between 1 and ${MAX_ANCHORS} anchors`);
  if (req.anchor_weights.length > 0 && req.anchor_weights.length !== anchorIds.length)
    throw invalid('anchor_weights', 'One weight per anchor');
  if (!req.anchor_weights.every(finiteNonNegative))
    throw invalid('anchor_weights', 'Weights must be non-negative numbers');
  if (req.anchor_weights.length > 0 && !req.anchor_weights.some((w) => w > 0))
    throw invalid('anchor_weights', 'At least one weight must be positive');
  const requested = req.weights ?? { description: 0, properties: 0, attributes: 0 };
  if (!PRODUCT_VECTOR_FIELDS.every((f) => finiteNonNegative(requested[f])))
    throw invalid('weights', 'Weights must be non-negative numbers');
  if (req.exclude_product_ids.length > MAX_EXCLUDED)
    throw invalid('exclude_product_ids', `At most ${MAX_EXCLUDED} excluded products`);
  const minScore = req.min_score ?? undefined;
  const { minimum, maximum } = SIMILAR_MIN_SCORE_RANGE;
  // NaN fails both comparisons: checked as "not finite" first.
  if (minScore !== undefined && (!Number.isFinite(minScore) || minScore < minimum || minScore > maximum))
    throw invalid('min_score', `min_score must be a number between ${minimum} and ${maximum} (the cosine scale)`);
  return { limit, mode: mode as VectorFieldChoice, requested, minScore };
}

/** The anchors' vectors, the caller's tenant only (another tenant's anchor is unknown) and weighted above 0. */
const tenantAnchors = (found: StoredProduct[], weightOf: Map<string, number>, tenantId: string) =>
  found.filter((a) => a.source['tenant_id'] === tenantId && (weightOf.get(a.id) ?? 0) > 0);

/** Every anchor kept in the cache with every field `fields` names, or undefined. */
function keptAnchors(cache: AnchorCache, ids: string[], fields: readonly ProductVectorField[]) {
  const kept: StoredProduct[] = [];
  for (const id of ids) {
    const a = cache.get(id);
    if (!a || !fields.every((f) => productVectorPath(f) in a.source)) return undefined;
    kept.push(a);
  }
  return kept;
}

/** The index has exactly the kept anchors, at the versions they were read at. */
function stillCurrent(kept: StoredProduct[], now: StoredProduct[]): boolean {
  const version = new Map(now.map((a) => [a.id, `${a.version}:${String(a.source['tenant_id'])}`]));
  return (
    kept.length === now.length &&
    kept.every((a) => version.get(a.id) === `${a.version}:${String(a.source['tenant_id'])}`)
  );
}

/** One kNN round of `k` neighbours per field, scored exactly, best first. */
async function searchCandidates(
  deps: SimilarDeps,
  plan: Plan,
  k: number,
  filter: SimilarFilter,
): Promise<{ candidates: Candidate[]; exhausted: boolean }> {
  const hits = await knnNeighbours(deps.es, {
    index: plan.index,
    centroids: plan.centroids,
    k,
    filter,
    withVectors: plan.fields.length > 1,
    ...(deps.hitFields ? { sourceFields: deps.hitFields } : {}),
    ...(deps.hitSources ? { sources: deps.hitSources } : {}),
  });
  const candidates = hits.map((h) => scoreCandidate(h, plan.centroids, plan.weights));
  candidates.sort(byScoreThenId);
  return { candidates, exhausted: hits.length < k };
}

/**
 * Fetches more than `limit` when collapsing or min_score can drop hits, and widens (×4, up to
 * MAX_CANDIDATES) until `limit` is met, the index is exhausted, or no product outside the
 * round can reach min_score (a high min_score stops after one round). Hybrid ranks the union
 * of per-field neighbours by the weighted sum: a hit can be outside one field's top `limit`, so
 * each field contributes more candidates.
 */
async function widenUntilLimit(
  deps: SimilarDeps,
  plan: Plan,
  filter: SimilarFilter,
  options: { limit: number; minScore: number | undefined; collapse: boolean },
) {
  const { limit, minScore, collapse } = options;
  const base = plan.fields.length > 1 ? fusionCandidates(limit) : Math.max(limit, 10);
  let k = collapse || minScore !== undefined ? Math.max(base, limit * 5, 50) : base;
  let round = await searchCandidates(deps, plan, k, filter);
  let picked = selectHits(round.candidates, minScore, collapse);
  const moreCanScore = () =>
    minScore === undefined || unseenScoreCeiling(round.candidates, k, plan.weights) >= minScore;
  while (picked.kept.length < limit && !round.exhausted && k < MAX_CANDIDATES && moreCanScore()) {
    k = Math.min(MAX_CANDIDATES, k * 4);
    round = await searchCandidates(deps, plan, k, filter);
    picked = selectHits(round.candidates, minScore, collapse);
  }
  return { k, candidates: round.candidates, picked };
}

/** A hit as answered: score_sources per field, and with explain its per-field cosine, weight, contribution and rank. */
function toHit(c: Candidate, plan: Plan, ranks: Map<ProductVectorField, Map<string, number>> | undefined): RankedHit {
  const score_sources = Object.fromEntries(plan.fields.map((f) => [f, plan.weights.get(f)! * (c.cosines[f] ?? 0)]));
  const explanation = ranks
    ? JSON.stringify({
        scale: 'cosine',
        family: family(c),
        fields: Object.fromEntries(
          plan.fields.map((f) => [
            f,
            {
              cosine: c.cosines[f] ?? null,
              weight: plan.weights.get(f),
              contribution: score_sources[f],
              rank: ranks.get(f)!.get(c.id),
            },
          ]),
        ),
      })
    : '';
  return { id: c.id, score: c.score, score_sources, explanation_json: explanation, source: c.source };
}

/**
 * SimilarProducts: products closest to the anchors: per field the centroid of the anchors' unit
 * vectors (weighted by anchor_weights), kNN with every filter inside the query, then exact
 * scoring. Scale: cosine in [-1, 1]; score_sources[field] = weight × cosine, score = their sum,
 * and the field weights are normalised to sum to 1 over the fields used, so score is on the
 * cosine scale.
 */
export async function similarProducts(deps: SimilarDeps, tenantId: string, req: Request): Promise<SimilarAnswer> {
  const checked = similarRequest(req);
  const index = await deps.productsIndex();
  const weightOf = anchorWeights(req.anchor_product_ids, req.anchor_weights);
  const ids = [...weightOf.keys()];
  const around = (found: StoredProduct[]) =>
    searchAround(deps, { index, tenantId, req, checked, weightOf }, tenantAnchors(found, weightOf, tenantId));
  const cache = deps.anchorCache;
  const kept = cache && keptAnchors(cache, ids, checked.mode === 'hybrid' ? PRODUCT_VECTOR_FIELDS : [checked.mode]);
  if (cache && kept && ids.every((id) => cache.confirmed(id))) return around(kept);
  if (cache && kept) {
    // The search runs on the kept vectors while the index says whether they still hold.
    const [now, answer] = await Promise.allSettled([readAnchorVersions(deps.es, index, ids), around(kept)]);
    if (now.status === 'rejected') throw now.reason;
    if (stillCurrent(kept, now.value)) {
      for (const id of ids) cache.confirm(id);
      if (answer.status === 'rejected') throw answer.reason;
      return answer.value;
    }
    for (const id of ids) cache.delete(id);
  }
  // Only the vectors the search reads (one field: a third of the bytes; measured 1.4 against 2.3 ms
  // for one anchor): a later search of the anchor in another field reads it again.
  const read = await readAnchors(
    deps.es,
    index,
    ids,
    checked.mode === 'hybrid' ? PRODUCT_VECTOR_FIELDS : [checked.mode],
  );
  if (cache) for (const a of read) cache.set(a);
  return around(read);
}

/** A similar search's answer: the anchors that counted, the field searched, the hits, and with explain what each filter removed. */
export interface SimilarAnswer {
  anchor_product_ids: string[];
  vector_field: string;
  hits: RankedHit[];
  filtered_json: string;
}

/** The search around the anchors found (the tenant's, weighted above 0). */
async function searchAround(
  deps: SimilarDeps,
  s: {
    index: string;
    tenantId: string;
    req: Request;
    checked: ReturnType<typeof similarRequest>;
    weightOf: Map<string, number>;
  },
  anchors: StoredProduct[],
): Promise<SimilarAnswer> {
  const { index, tenantId, req, weightOf } = s;
  const { limit, mode, requested, minScore } = s.checked;
  if (anchors.length === 0) throw AppError.notFound('None of the anchor products was found');
  const { centroids, used } = centroidsPerField(anchors, mode, requested, weightOf);
  if (centroids.size === 0) throw AppError.notFound(`No anchor product has vectors for ${mode}`);
  const fields = [...centroids.keys()];
  const plan: Plan = { index, centroids, fields, weights: fieldWeights(fields, mode, requested) };

  const anchorIds = req.anchor_product_ids;
  const excludedIds = [...new Set([...anchorIds, ...req.exclude_product_ids])];
  const filter: SimilarFilter = {
    tenantId,
    siteId: req.site_id,
    language: req.language,
    excludedIds,
    excludeParents: req.exclude_parents,
  };
  const { k, candidates, picked } = await widenUntilLimit(deps, plan, filter, {
    limit,
    minScore,
    collapse: req.collapse_variants,
  });
  const ranks = req.explain ? fieldRanks(candidates, fields) : undefined;
  const response: SimilarAnswer = {
    anchor_product_ids: anchorIds.filter((id, i) => used.has(id) && anchorIds.indexOf(id) === i),
    vector_field: mode,
    hits: picked.kept.slice(0, limit).map((c) => toHit(c, plan, ranks)),
    filtered_json: '',
  };
  if (req.explain) {
    // Which filter removed how many of the candidates a tenant-only search finds.
    const unfiltered = await searchCandidates(deps, plan, k, { tenantId });
    const counts = filteredCounts(unfiltered.candidates, {
      anchorIds,
      excludeIds: req.exclude_product_ids,
      siteId: req.site_id,
      language: req.language,
      excludeParents: req.exclude_parents,
    });
    response.filtered_json = JSON.stringify({ ...counts, collapsed: picked.collapsed, min_score: picked.belowMin });
  }
  return response;
}
