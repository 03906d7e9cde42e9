import { AppError } from '@kb/platform';
import type { Backends } from '../../clients/backends';
import type { RouteTable } from '../route';
import { SimilarSearch, SimilarSearchResponse } from '../catalog-schemas';
import { productHitJson } from '../catalog-views';
import { similarSearchRequest } from '../catalog-requests';
import type { ReadPath } from '../../read-path/read-path';

export function similarSearchRoutes(routes: RouteTable, backends: Backends, reads?: ReadPath): void {
  routes.define({
    method: 'post',
    path: '/search/similar',
    operationId: 'searchSimilarProducts',
    summary: 'Products closest to the centroid of the anchor products',
    description:
      'Anchors are product ids of the tenant; unknown ones are ignored, none left is a 404. vector_field ' +
      'defaults to the tenant setting default_vector_field; hybrid is a weighted sum over the fields ' +
      "(tenant hybrid_weights), score_sources gives each field's contribution. Anchors and " +
      'exclude_product_ids are never returned; parents are left out when the tenant variant_strategy is ' +
      'children_only. Extensions: anchor_weights, min_score, collapse_variants, explain. ' +
      'A rule JSON Schema cannot state: anchor_weights, when sent, has exactly one weight per anchor (422 otherwise).',
    tag: 'search',
    readOnly: true,
    body: SimilarSearch,
    responses: { 200: { description: 'Similar products', schema: SimilarSearchResponse } },
    handler: async ({ body, caller, tenant }) => {
      if (body.anchor_weights && body.anchor_weights.length !== body.anchor_product_ids.length) {
        throw AppError.invalid([
          {
            loc: ['body', 'anchor_weights'],
            msg: `anchor_weights needs one weight per anchor (${body.anchor_product_ids.length})`,
            type: 'value_error',
          },
        ]);
      }
      const req = similarSearchRequest(caller, tenant.settings, body);
      // The read path answers from the index when it can; else the catalog (and similarity) service.
      const res = (await reads?.similar(caller, req)) ?? (await backends.catalog.call('SimilarProducts', req));
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
