import {
  AppError,
  FIELD_LIMITS,
  PRODUCT_VECTOR_FIELDS,
  SIMILAR_DEFAULT_LIMIT,
  SIMILAR_MAX_LIMIT,
  SIMILAR_MIN_SCORE_RANGE,
  VECTOR_FIELD_CHOICES,
  type ProductVectorField,
  type similarityV1,
  type VectorFieldChoice,
} from '@kb/common';
import { knnNeighbours, readAnchors, type SimilarFilter, type StoredProduct } from '../data-access/similar-queries';
import { readCaller } from './callers';
import type { IndexDeps } from './deps';
import { byScoreThenId, type RankedHit } from './hybrid-search';
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
async function tenantAnchors(
  deps: IndexDeps,
  index: string,
  weightOf: Map<string, number>,
  tenantId: string,
  mode: VectorFieldChoice,
): Promise<StoredProduct[]> {
  // Only the vectors the search reads (one field: a third of the bytes to fetch and parse).
  const found = await readAnchors(
    deps.es,
    index,
    [...weightOf.keys()],
    mode === 'hybrid' ? PRODUCT_VECTOR_FIELDS : [mode],
  );
  return found.filter((a) => a.source['tenant_id'] === tenantId && (weightOf.get(a.id) ?? 0) > 0);
}

/** One kNN round of `k` neighbours per field, scored exactly, best first. */
async function searchCandidates(
  deps: IndexDeps,
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
  deps: IndexDeps,
  plan: Plan,
  filter: SimilarFilter,
  options: { limit: number; minScore: number | undefined; collapse: boolean },
) {
  const { limit, minScore, collapse } = options;
  const base = plan.fields.length > 1 ? Math.max(limit * 3, 30) : Math.max(limit, 10);
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
  return { id: c.id, score: c.score, score_sources, explanation_json: explanation };
}

/**
 * SimilarProducts: products closest to the anchors: per field the centroid of the anchors' unit
 * vectors (weighted by anchor_weights), kNN with every filter inside the query, then exact
 * scoring. Scale: cosine in [-1, 1]; score_sources[field] = weight × cosine, score = their sum,
 * and the field weights are normalised to sum to 1 over the fields used, so score is on the
 * cosine scale.
 */
export async function similarProducts(deps: IndexDeps, req: Request): Promise<similarityV1.SimilarProductsResponse> {
  const { tenantId } = readCaller(req.caller);
  const { limit, mode, requested, minScore } = similarRequest(req);
  await deps.indices.ensure('products');
  const index = deps.indices.alias('products');
  const weightOf = anchorWeights(req.anchor_product_ids, req.anchor_weights);
  const anchors = await tenantAnchors(deps, index, weightOf, tenantId, mode);
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
  const response: similarityV1.SimilarProductsResponse = {
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
