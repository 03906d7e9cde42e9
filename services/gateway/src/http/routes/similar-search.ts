import { AppError, DEFAULT_VECTOR_FIELD, SIMILAR_DEFAULT_LIMIT, type knowledgeV1 } from '@kb/common';
import type { Backends } from '../../clients/backends';
import type { RouteTable } from '../route';
import { SimilarSearch, SimilarSearchResponse } from '../catalog-schemas';
import { productHitJson } from '../catalog-views';

/** The tenant settings the catalog's searches need (the gateway resolved the tenant already). */
export function searchSettings(settings: knowledgeV1.TenantSettings__Output | null | undefined) {
  return {
    variant_strategy: settings?.variant_strategy || 'all',
    default_vector_field: settings?.default_vector_field || DEFAULT_VECTOR_FIELD,
    hybrid_weights: settings?.hybrid_weights ?? {},
  };
}

export function similarSearchRoutes(routes: RouteTable, backends: Backends): void {
  routes.define({
    method: 'post',
    path: '/search/similar',
    operationId: 'searchSimilarProducts',
    summary: 'Products closest to the centroid of the anchor products',
    description:
      'Anchors are product ids of the tenant; unknown ones are ignored, none left is a 404. vector_field defaults to the tenant setting default_vector_field; hybrid is a weighted sum over the fields (tenant hybrid_weights), score_sources gives each field\'s contribution. Anchors and exclude_product_ids are never returned; parents are left out when the tenant variant_strategy is children_only. Extensions: anchor_weights (one per anchor), min_score, collapse_variants, explain.',
    tag: 'search',
    body: SimilarSearch,
    responses: { 200: { description: 'Similar products', schema: SimilarSearchResponse } },
    handler: async ({ body, caller, tenant }) => {
      if (body.anchor_weights && body.anchor_weights.length !== body.anchor_product_ids.length) {
        throw AppError.invalid([
          { loc: ['body', 'anchor_weights'], msg: `anchor_weights needs one weight per anchor (${body.anchor_product_ids.length})`, type: 'value_error' },
        ]);
      }
      const res = await backends.catalog.call('SimilarProducts', {
        caller,
        anchor_product_ids: body.anchor_product_ids,
        anchor_weights: body.anchor_weights ?? [],
        limit: body.limit ?? SIMILAR_DEFAULT_LIMIT,
        ...(body.vector_field != null ? { vector_field: body.vector_field } : {}),
        ...(body.site_id != null ? { site_id: body.site_id } : {}),
        ...(body.language != null ? { language: body.language } : {}),
        exclude_product_ids: body.exclude_product_ids ?? [],
        ...(body.min_score != null ? { min_score: body.min_score } : {}),
        collapse_variants: body.collapse_variants ?? false,
        explain: body.explain ?? false,
        settings: searchSettings(tenant.settings),
      });
      return {
        body: {
          anchor_product_ids: res.anchor_product_ids,
          vector_field: res.vector_field,
          products: res.hits.map(productHitJson),
          ...(body.explain ? { explain: res.explain_json ? (JSON.parse(res.explain_json) as unknown) : {} } : {}),
        },
      };
    },
  });
}
