import type { Backends } from '../../clients/backends';
import type { RouteTable } from '../route';
import { ProductSearch, ProductSearchResponse } from '../catalog-schemas';
import { numberToken, parseKeepingNumbers, plainDecimal } from '@kb/common';
import { searchSettings } from './similar-search';
import { productHitJson } from '../catalog-views';

/** price_min / price_max digit for digit from the raw body. */
function exactPrice(rawBody: string | undefined, field: 'price_min' | 'price_max'): string | undefined {
  if (!rawBody) return undefined;
  const v = (parseKeepingNumbers(rawBody) as Record<string, unknown>)[field];
  const token = numberToken(v);
  return token === undefined ? undefined : plainDecimal(token);
}

export function productSearchRoutes(routes: RouteTable, backends: Backends): void {
  routes.define({
    method: 'post',
    path: '/search/products',
    operationId: 'searchProducts',
    summary: 'Search products by text',
    description:
      'Hybrid keyword (BM25; search_keywords boosted above title; exact sku/gtin hits first) and vector search on the query embedding, with filters. Hits carry score_sources {keyword, vector}. Parents are left out when the tenant variant_strategy is children_only.',
    tag: 'search',
    extension: true,
    body: ProductSearch,
    responses: { 200: { description: 'Matching products', schema: ProductSearchResponse } },
    handler: async ({ body, caller, tenant, ctx }) => {
      const priceMin = body.price_min != null ? exactPrice(ctx.request.rawBody, 'price_min') : undefined;
      const priceMax = body.price_max != null ? exactPrice(ctx.request.rawBody, 'price_max') : undefined;
      const res = await backends.catalog.call('SearchProducts', {
        caller,
        query: body.query,
        limit: body.limit ?? 10,
        ...(body.site_id != null ? { site_id: body.site_id } : {}),
        ...(body.language != null ? { language: body.language } : {}),
        ...(body.brand != null ? { brand: body.brand } : {}),
        ...(body.category != null ? { category: body.category } : {}),
        ...(body.availability != null ? { availability: body.availability } : {}),
        ...(priceMin !== undefined ? { price_min: priceMin } : {}),
        ...(priceMax !== undefined ? { price_max: priceMax } : {}),
        settings: searchSettings(tenant.settings),
      });
      return { body: { products: res.hits.map(productHitJson) } };
    },
  });
}
