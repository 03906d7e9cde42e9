import type { Backends } from '../../clients/backends';
import type { RouteTable } from '../route';
import { ProductSearch, ProductSearchResponse } from '../catalog-schemas';
import { productSearchRequest } from '../catalog-requests';
import { productHitJson } from '../catalog-views';
import type { ReadPath } from '../../read-path/read-path';

export function productSearchRoutes(routes: RouteTable, backends: Backends, reads?: ReadPath): void {
  routes.define({
    method: 'post',
    path: '/search/products',
    operationId: 'searchProducts',
    summary: 'Search products by text',
    description:
      'Hybrid keyword (BM25; search_keywords boosted above title; exact sku/gtin hits first) ' +
      'and vector search on the query embedding, with filters. Hits carry score_sources ' +
      '{keyword, vector}. Parents are left out when the tenant variant_strategy is children_only. ' +
      'A rule JSON Schema cannot state: price_min must not exceed price_max (422 otherwise).',
    tag: 'search',
    readOnly: true,
    extension: true,
    body: ProductSearch,
    responses: { 200: { description: 'Matching products', schema: ProductSearchResponse } },
    handler: async ({ body, caller, tenant, ctx }) => {
      const req = productSearchRequest(caller, tenant.settings, body, ctx.request.rawBody);
      // The read path answers from the index when it can; else the catalog (and similarity) service.
      const hits =
        (await reads?.searchProducts(caller, req)) ?? (await backends.catalog.call('SearchProducts', req)).hits;
      return { body: { products: hits.map(productHitJson) } };
    },
  });
}
