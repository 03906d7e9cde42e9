import type { catalogV1, similarityV1 } from '@kb/platform';
import { DEFAULT_VECTOR_FIELD, SIMILAR_DEFAULT_LIMIT } from './search-defaults';

/** A catalog SimilarProducts request as either road holds it: the gRPC message, or the gateway's own. */
type CatalogSimilarRequest = catalogV1.SimilarProductsRequest | catalogV1.SimilarProductsRequest__Output;

/** The anchors a similar search compares with, and their weights (empty: equal weights). */
export interface SimilarAnchors {
  anchors: string[];
  weights: number[];
}

/**
 * The anchors in request order (first occurrence), each with its weight when weights were sent;
 * `known` leaves out the ones the catalog does not have (their weights go with them).
 */
export function similarAnchorsOf(
  req: CatalogSimilarRequest,
  known: (id: string) => boolean = () => true,
): SimilarAnchors {
  const anchors: string[] = [];
  const weights: number[] = [];
  const sent = req.anchor_weights ?? [];
  (req.anchor_product_ids ?? []).forEach((id, i) => {
    if (!known(id) || anchors.includes(id)) return;
    anchors.push(id);
    if (sent.length) weights.push(Number(sent[i] ?? 1));
  });
  return { anchors, weights };
}

/**
 * The similarity search a catalog SimilarProducts request asks for, with the request's and the
 * tenant's settings' defaults filled in: one rule for the catalog's road (a gRPC call to the
 * similarity service) and the gateway's read path (the same search run in process), so the two
 * cannot drift apart. `siteId`: the site's id, resolved from the request's id or slug. Absent
 * optional fields are left out.
 */
export function similarSearchOf(
  req: CatalogSimilarRequest,
  anchors: SimilarAnchors,
  siteId: string | undefined,
): Omit<similarityV1.SimilarProductsRequest__Output, 'caller'> {
  const settings = req.settings ?? {};
  const weights = settings.hybrid_weights ?? {};
  return {
    anchor_product_ids: anchors.anchors,
    anchor_weights: anchors.weights,
    vector_field: req.vector_field ?? (settings.default_vector_field || DEFAULT_VECTOR_FIELD),
    weights: {
      description: Number(weights.description ?? 1),
      properties: Number(weights.properties ?? 1),
      attributes: Number(weights.attributes ?? 1),
    },
    limit: req.limit || SIMILAR_DEFAULT_LIMIT,
    ...(siteId ? { site_id: siteId } : {}),
    ...(req.language !== undefined && req.language !== null ? { language: req.language } : {}),
    exclude_product_ids: [...new Set([...anchors.anchors, ...(req.exclude_product_ids ?? [])])],
    exclude_parents: settings.variant_strategy === 'children_only',
    collapse_variants: Boolean(req.collapse_variants),
    ...(req.min_score !== undefined && req.min_score !== null ? { min_score: Number(req.min_score) } : {}),
    explain: Boolean(req.explain),
  };
}
