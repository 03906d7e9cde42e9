import { PRODUCT_VECTOR_FIELDS, type ProductVectorField, type VectorFieldChoice } from './search-defaults';
import { cosineOfScore } from './knn';
import { productVectorPath } from './mappings';
import type { StoredProduct } from './similar-queries';
import { centroid, dot, normalized } from './vectors';

/** The pure steps of a similar search: centroids, field weights, exact scores, collapsing, explain. */

export type FieldWeights = Record<ProductVectorField, number>;

export interface Candidate {
  id: string;
  source: Record<string, unknown>;
  cosines: Partial<Record<ProductVectorField, number>>;
  score: number;
}

/** Each anchor id's weight (1 each without anchor_weights); an id given twice adds up. */
export function anchorWeights(anchorIds: string[], weights: number[]): Map<string, number> {
  const weightOf = new Map<string, number>();
  anchorIds.forEach((id, i) => weightOf.set(id, (weightOf.get(id) ?? 0) + (weights.length > 0 ? weights[i]! : 1)));
  return weightOf;
}

/**
 * Per field the weighted centroid of the anchors having a vector for it. Hybrid leaves out
 * fields whose requested weight is 0 when any is positive. `used`: the anchors that count.
 */
export function centroidsPerField(
  anchors: StoredProduct[],
  mode: VectorFieldChoice,
  requested: FieldWeights,
  weightOf: Map<string, number>,
): { centroids: Map<ProductVectorField, Float64Array>; used: Set<string> } {
  const candidates: ProductVectorField[] = mode === 'hybrid' ? [...PRODUCT_VECTOR_FIELDS] : [mode];
  const anyPositive = candidates.some((f) => requested[f] > 0);
  const centroids = new Map<ProductVectorField, Float64Array>();
  const used = new Set<string>();
  for (const field of candidates) {
    if (mode === 'hybrid' && anyPositive && requested[field] === 0) continue;
    const having = anchors.filter((a) => Array.isArray(a.source[productVectorPath(field)]));
    if (having.length === 0) continue;
    const c = centroid(
      having.map((a) => a.source[productVectorPath(field)] as number[]),
      having.map((a) => weightOf.get(a.id)!),
    );
    if (!c) continue;
    centroids.set(field, c);
    for (const a of having) used.add(a.id);
  }
  return { centroids, used };
}

/** Field weights over the fields used, normalised to sum 1 (single field: 1; all zero: equal). */
export function fieldWeights(
  fields: ProductVectorField[],
  mode: VectorFieldChoice,
  requested: FieldWeights,
): Map<ProductVectorField, number> {
  const raw = fields.map((f) => (mode === 'hybrid' ? requested[f] : 1));
  const total = raw.reduce((a, b) => a + b, 0);
  return new Map(fields.map((f, i) => [f, total > 0 ? raw[i]! / total : 1 / fields.length]));
}

/**
 * A kNN hit scored exactly: with several fields, the cosine of each stored vector against its
 * centroid (the vectors then dropped from the source); with one, the cosine behind the kNN score.
 */
export function scoreCandidate(
  hit: { id: string; score: number | null | undefined; source: Record<string, unknown> },
  centroids: Map<ProductVectorField, Float64Array>,
  weights: Map<ProductVectorField, number>,
): Candidate {
  const fields = [...centroids.keys()];
  const { source } = hit;
  const cosines: Candidate['cosines'] = {};
  if (fields.length > 1) {
    for (const f of fields) {
      const v = source[productVectorPath(f)] as number[] | undefined;
      const unit = v ? normalized(v) : undefined;
      if (unit) cosines[f] = dot(centroids.get(f)!, unit);
      delete source[productVectorPath(f)];
    }
  } else {
    cosines[fields[0]!] = cosineOfScore(hit.score);
  }
  const score = fields.reduce((sum, f) => sum + weights.get(f)! * (cosines[f] ?? 0), 0);
  return { id: hit.id, source, cosines, score };
}

/** A product's variant family: its parent, or itself. */
export const family = (c: Candidate) => (c.source['parent_product_id'] as string | undefined) ?? c.id;

/**
 * The highest score a product outside this round could have: per field, no unseen product is
 * closer than the k-th best cosine the round found for that field (kNN returns the nearest k),
 * and with several fields a product may lack a field's vector (that part is then 0). When this
 * ceiling is below min_score, fetching more candidates cannot add a hit.
 */
export function unseenScoreCeiling(
  candidates: Candidate[],
  k: number,
  weights: Map<ProductVectorField, number>,
): number {
  const fields = [...weights.keys()];
  let ceiling = 0;
  for (const f of fields) {
    const cosines = candidates
      .map((c) => c.cosines[f])
      .filter((x): x is number => x !== undefined)
      .sort((a, b) => b - a);
    const kth = cosines.length >= k ? cosines[k - 1]! : -1;
    ceiling += weights.get(f)! * (fields.length > 1 ? Math.max(kth, 0) : kth);
  }
  return ceiling;
}

/** The candidates (best first) at or above minScore, one per family when collapsing, with what each rule dropped. */
export function selectHits(
  candidates: Candidate[],
  minScore: number | undefined,
  collapse: boolean,
): { kept: Candidate[]; belowMin: number; collapsed: number } {
  const kept: Candidate[] = [];
  const families = new Set<string>();
  let belowMin = 0;
  let collapsed = 0;
  for (const c of candidates) {
    if (minScore !== undefined && c.score < minScore) {
      belowMin++;
      continue;
    }
    if (collapse) {
      if (families.has(family(c))) {
        collapsed++;
        continue;
      }
      families.add(family(c));
    }
    kept.push(c);
  }
  return { kept, belowMin, collapsed };
}

/** Each candidate's 1-based rank per field by that field's cosine (no vector: last). */
export function fieldRanks(
  candidates: Candidate[],
  fields: ProductVectorField[],
): Map<ProductVectorField, Map<string, number>> {
  const ranks = new Map<ProductVectorField, Map<string, number>>();
  for (const f of fields) {
    const order = [...candidates].sort((a, b) => (b.cosines[f] ?? -2) - (a.cosines[f] ?? -2));
    ranks.set(f, new Map(order.map((c, i) => [c.id, i + 1])));
  }
  return ranks;
}

/**
 * How many of a tenant-only pass's candidates each filter removes, each counted once for the
 * first filter (in this order) that removes it.
 */
export function filteredCounts(
  unfiltered: Candidate[],
  req: {
    anchorIds: string[];
    excludeIds: string[];
    siteId?: string | null;
    language?: string | null;
    excludeParents: boolean;
  },
): { anchor: number; excluded: number; site: number; language: number; parent: number } {
  const anchors = new Set(req.anchorIds);
  const excluded = new Set(req.excludeIds);
  const counts = { anchor: 0, excluded: 0, site: 0, language: 0, parent: 0 };
  for (const c of unfiltered) {
    if (anchors.has(c.id)) counts.anchor++;
    else if (excluded.has(c.id)) counts.excluded++;
    else if (req.siteId && c.source['site_id'] !== req.siteId) counts.site++;
    else if (req.language && c.source['language'] !== req.language) counts.language++;
    else if (req.excludeParents && c.source['is_parent'] === true) counts.parent++;
  }
  return counts;
}
