import { AppError, type similarityV1 } from '@kb/platform';
import { PRODUCT_SEARCH, productFilter, type RankedHit } from '@kb/search';
import { hybridSearch, searchRequest } from './hybrid-search';
import { DECIMAL } from './index-documents';
import type { EmbeddingDeps } from './deps';

function price(loc: string, value: string | null | undefined): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (!DECIMAL.test(value))
    throw AppError.invalid([{ loc: [loc], msg: `${loc} must be a decimal string`, type: 'value_error' }]);
  return Number(value);
}

/** SearchProducts: hybrid search over a tenant's products; an exact sku or gtin comes first. */
export async function searchProducts(
  deps: EmbeddingDeps,
  req: similarityV1.SearchProductsRequest__Output,
): Promise<RankedHit[]> {
  const { tenantId, query, limit } = searchRequest(req);
  const priceMin = price('price_min', req.price_min);
  const priceMax = price('price_max', req.price_max);
  if (priceMin !== undefined && priceMax !== undefined && priceMin > priceMax) {
    throw AppError.invalid([{ loc: ['price_min'], msg: 'price_min must not exceed price_max', type: 'value_error' }]);
  }
  const filter = productFilter(tenantId, { ...req, priceMin, priceMax, excludeParents: req.exclude_parents });
  await deps.indices.ensure('products');
  return hybridSearch(deps, { index: deps.indices.alias('products'), query, limit, filter, fields: PRODUCT_SEARCH });
}
