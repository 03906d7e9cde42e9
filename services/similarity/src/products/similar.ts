import type { Client, estypes } from '@elastic/elasticsearch';
import { AppError, SIMILAR_DEFAULT_LIMIT, SIMILAR_MAX_LIMIT, VECTOR_FIELD_CHOICES, type similarityV1 } from '@kb/common';
import { withElasticsearch } from '../data-access/es-errors';
import type { IndexManager } from '../indices/index-manager';
import { PRODUCT_VECTOR_FIELDS, productVectorPath, type ProductVectorField } from '../indices/mappings';
import { centroid, dot, normalized } from '../vectors';

const MAX_ANCHORS = 100;
/** kNN candidates per field: generous, so recall@10 against brute force stays ≥ 0.95. */
const MIN_NUM_CANDIDATES = 200;
const MAX_K = 1000;

type Request = similarityV1.SimilarProductsRequest__Output;
type Hit = { id: string; score: number; score_sources: Record<string, number>; explanation_json: string };

interface Candidate {
  id: string;
  source: Record<string, unknown>;
  cosines: Partial<Record<ProductVectorField, number>>;
  score: number;
}

const invalid = (loc: string, msg: string) => AppError.invalid([{ loc: [loc], msg, type: 'value_error' }]);
const finiteNonNegative = (x: number) => Number.isFinite(x) && x >= 0;

/**
 * Products closest to the anchors: per field the centroid of the anchors' unit vectors
 * (weighted by anchor_weights), kNN with every filter inside the query, then exact scoring.
 * Scale: cosine in [-1, 1]; score_sources[field] = weight × cosine, score = their sum, and the
 * field weights are normalised to sum to 1 over the fields used, so score is on the cosine scale.
 */
export async function similarProducts(deps: { es: Client; indices: IndexManager }, req: Request, tenantId: string): Promise<similarityV1.SimilarProductsResponse> {
  const limit = req.limit === 0 ? SIMILAR_DEFAULT_LIMIT : req.limit;
  if (!Number.isInteger(limit) || limit < 1 || limit > SIMILAR_MAX_LIMIT) throw invalid('limit', `limit must be between 1 and ${SIMILAR_MAX_LIMIT}`);
  const mode = req.vector_field;
  if (!(PRODUCT_VECTOR_FIELDS as readonly string[]).includes(mode) && mode !== 'hybrid') {
    throw invalid('vector_field', `vector_field must be one of ${VECTOR_FIELD_CHOICES.join(', ')}`);
  }
  const anchorIds = req.anchor_product_ids;
  if (anchorIds.length === 0 || anchorIds.length > MAX_ANCHORS) throw invalid('anchor_product_ids', `Between 1 and ${MAX_ANCHORS} anchors`);
  if (req.anchor_weights.length > 0 && req.anchor_weights.length !== anchorIds.length) throw invalid('anchor_weights', 'One weight per anchor');
  if (!req.anchor_weights.every(finiteNonNegative)) throw invalid('anchor_weights', 'Weights must be non-negative numbers');
  if (req.anchor_weights.length > 0 && !req.anchor_weights.some((w) => w > 0)) throw invalid('anchor_weights', 'At least one weight must be positive');
  const requestedWeights = req.weights ?? { description: 0, properties: 0, attributes: 0 };
  if (!PRODUCT_VECTOR_FIELDS.every((f) => finiteNonNegative(requestedWeights[f]))) throw invalid('weights', 'Weights must be non-negative numbers');
  const minScore = req.min_score ?? undefined;
  if (minScore !== undefined && minScore !== null && !Number.isFinite(minScore)) throw invalid('min_score', 'min_score must be a number');

  await deps.indices.ensure('products');
  const index = deps.indices.alias('products');

  // The anchors' vectors; another tenant's anchor is unknown.
  const weightOf = new Map<string, number>();
  anchorIds.forEach((id, i) => weightOf.set(id, (weightOf.get(id) ?? 0) + (req.anchor_weights.length > 0 ? req.anchor_weights[i]! : 1)));
  const res = await withElasticsearch(() =>
    deps.es.mget<Record<string, unknown>>({ index, ids: [...weightOf.keys()], _source_includes: ['tenant_id', ...PRODUCT_VECTOR_FIELDS.map(productVectorPath)] }),
  );
  const anchors = res.docs.filter((d) => 'found' in d && d.found && d._source?.['tenant_id'] === tenantId && (weightOf.get(d._id) ?? 0) > 0) as estypes.GetGetResult<Record<string, unknown>>[];

  const candidatesFields: ProductVectorField[] = mode === 'hybrid' ? [...PRODUCT_VECTOR_FIELDS] : [mode as ProductVectorField];
  const centroids = new Map<ProductVectorField, Float64Array>();
  const used = new Set<string>();
  for (const field of candidatesFields) {
    if (mode === 'hybrid' && candidatesFields.some((f) => requestedWeights[f] > 0) && requestedWeights[field] === 0) continue;
    const having = anchors.filter((a) => Array.isArray(a._source?.[productVectorPath(field)]));
    if (having.length === 0) continue;
    const c = centroid(having.map((a) => a._source![productVectorPath(field)] as number[]), having.map((a) => weightOf.get(a._id)!));
    if (!c) continue;
    centroids.set(field, c);
    for (const a of having) used.add(a._id);
  }
  if (centroids.size === 0) throw AppError.notFound(`No anchor product has vectors for ${mode}`);
  const fields = [...centroids.keys()];
  // Field weights over the fields used, normalised to sum 1 (all zero = equal).
  const raw = fields.map((f) => (mode === 'hybrid' ? requestedWeights[f] : 1));
  const total = raw.reduce((a, b) => a + b, 0);
  const fieldWeight = new Map(fields.map((f, i) => [f, total > 0 ? raw[i]! / total : 1 / fields.length]));

  const tenantFilter: estypes.QueryDslQueryContainer = { term: { tenant_id: tenantId } };
  const filter: estypes.QueryDslQueryContainer[] = [tenantFilter];
  if (req.site_id) filter.push({ term: { site_id: req.site_id } });
  if (req.language) filter.push({ term: { language: req.language } });
  const excluded = [...new Set([...anchorIds, ...req.exclude_product_ids])];
  const mustNot: estypes.QueryDslQueryContainer[] = [{ ids: { values: excluded } }];
  if (req.exclude_parents) mustNot.push({ term: { is_parent: true } });
  const filterQuery: estypes.QueryDslQueryContainer = { bool: { filter, must_not: mustNot } };

  const search = async (k: number, knnFilter: estypes.QueryDslQueryContainer): Promise<{ candidates: Candidate[]; exhausted: boolean }> => {
    const numCandidates = Math.min(10_000, Math.max(MIN_NUM_CANDIDATES, 2 * k));
    const hybrid = fields.length > 1;
    const out = await withElasticsearch(() =>
      deps.es.search<Record<string, unknown>>({
        index,
        size: k * fields.length,
        knn: fields.map((f) => ({ field: productVectorPath(f), query_vector: Array.from(centroids.get(f)!), k, num_candidates: numCandidates, filter: knnFilter })),
        _source: { includes: ['site_id', 'language', 'is_parent', 'parent_product_id', ...(hybrid ? fields.map(productVectorPath) : [])] },
      }),
    );
    const candidates = out.hits.hits.map((h): Candidate => {
      const source = h._source ?? {};
      const cosines: Candidate['cosines'] = {};
      if (hybrid) {
        for (const f of fields) {
          const v = source[productVectorPath(f)] as number[] | undefined;
          const unit = v ? normalized(v) : undefined;
          if (unit) cosines[f] = dot(centroids.get(f)!, unit);
          delete source[productVectorPath(f)];
        }
      } else {
        cosines[fields[0]!] = 2 * (h._score ?? 0.5) - 1; // ES cosine score is (1 + cos) / 2
      }
      const score = fields.reduce((sum, f) => sum + fieldWeight.get(f)! * (cosines[f] ?? 0), 0);
      return { id: h._id!, source, cosines, score };
    });
    candidates.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    return { candidates, exhausted: out.hits.hits.length < k };
  };

  const family = (c: Candidate) => (c.source['parent_product_id'] as string | undefined) ?? c.id;
  const select = (candidates: Candidate[]) => {
    const kept: Candidate[] = [];
    const families = new Set<string>();
    let belowMin = 0;
    let collapsed = 0;
    for (const c of candidates) {
      if (minScore !== undefined && minScore !== null && c.score < minScore) {
        belowMin++;
        continue;
      }
      if (req.collapse_variants) {
        if (families.has(family(c))) {
          collapsed++;
          continue;
        }
        families.add(family(c));
      }
      kept.push(c);
    }
    return { kept, belowMin, collapsed };
  };

  // Fetch more than limit when collapsing or min_score can drop hits; widen until limit is met.
  // Hybrid ranks the union of per-field neighbours by the weighted sum: a hit can be outside one
  // field's top `limit`, so each field contributes more candidates.
  const base = fields.length > 1 ? Math.max(limit * 3, 30) : Math.max(limit, 10);
  let k = req.collapse_variants || (minScore !== undefined && minScore !== null) ? Math.max(base, limit * 5, 50) : base;
  let round = await search(k, filterQuery);
  let picked = select(round.candidates);
  while (picked.kept.length < limit && !round.exhausted && k < MAX_K) {
    k = Math.min(MAX_K, k * 4);
    round = await search(k, filterQuery);
    picked = select(round.candidates);
  }
  const hits = picked.kept.slice(0, limit);

  const ranks = new Map<ProductVectorField, Map<string, number>>();
  for (const f of fields) {
    const order = [...round.candidates].sort((a, b) => (b.cosines[f] ?? -2) - (a.cosines[f] ?? -2));
    ranks.set(f, new Map(order.map((c, i) => [c.id, i + 1])));
  }
  const response: similarityV1.SimilarProductsResponse = {
    anchor_product_ids: anchorIds.filter((id, i) => used.has(id) && anchorIds.indexOf(id) === i),
    vector_field: mode,
    hits: hits.map((c): Hit => {
      const score_sources = Object.fromEntries(fields.map((f) => [f, fieldWeight.get(f)! * (c.cosines[f] ?? 0)]));
      const explanation = req.explain
        ? JSON.stringify({
            scale: 'cosine',
            family: family(c),
            fields: Object.fromEntries(
              fields.map((f) => [f, { cosine: c.cosines[f] ?? null, weight: fieldWeight.get(f), contribution: score_sources[f], rank: ranks.get(f)!.get(c.id) }]),
            ),
          })
        : '';
      return { id: c.id, score: c.score, score_sources, explanation_json: explanation };
    }),
    filtered_json: '',
  };
  if (req.explain) {
    // Which filter removed how many of the candidates a tenant-only search finds.
    const unfiltered = await search(k, tenantFilter);
    const anchorSet = new Set(anchorIds);
    const excludedSet = new Set(req.exclude_product_ids);
    const counts: Record<string, number> = { anchor: 0, excluded: 0, site: 0, language: 0, parent: 0, collapsed: picked.collapsed, min_score: picked.belowMin };
    for (const c of unfiltered.candidates) {
      if (anchorSet.has(c.id)) counts['anchor']!++;
      else if (excludedSet.has(c.id)) counts['excluded']!++;
      else if (req.site_id && c.source['site_id'] !== req.site_id) counts['site']!++;
      else if (req.language && c.source['language'] !== req.language) counts['language']!++;
      else if (req.exclude_parents && c.source['is_parent'] === true) counts['parent']!++;
    }
    response.filtered_json = JSON.stringify(counts);
  }
  return response;
}
