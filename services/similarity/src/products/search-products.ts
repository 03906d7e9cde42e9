import type { Client, estypes } from '@elastic/elasticsearch';
import { AppError, type similarityV1 } from '@kb/common';
import type { EmbeddingCache } from '../embedding-cache';
import { hybridSearch, searchLimit, searchQuery, type HybridHit } from '../hybrid-search';
import type { IndexManager } from '../indices/index-manager';
import { DECIMAL } from '../indexing';


/** Title above the rest; search_keywords are scored on their own, above these (see hybridSearch). */
export const PRODUCT_TEXT_FIELDS = ['title^2', 'brand.text^1.5', 'category.text^1.5', 'description', 'short_description'];

function price(loc: string, value: string | null | undefined): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (!DECIMAL.test(value)) throw AppError.invalid([{ loc: [loc], msg: `${loc} must be a decimal string`, type: 'value_error' }]);
  return Number(value);
}

export async function searchProducts(
  deps: { es: Client; indices: IndexManager; cache: EmbeddingCache },
  req: similarityV1.SearchProductsRequest__Output,
  tenantId: string,
): Promise<HybridHit[]> {
  const query = searchQuery(req.query);
  const limit = searchLimit(req.limit);
  const min = price('price_min', req.price_min);
  const max = price('price_max', req.price_max);
  if (min !== undefined && max !== undefined && min > max) {
    throw AppError.invalid([{ loc: ['price_min'], msg: 'price_min must not exceed price_max', type: 'value_error' }]);
  }
  const filter: estypes.QueryDslQueryContainer[] = [{ term: { tenant_id: tenantId } }];
  const term = (field: string, value: string | null | undefined) => {
    if (value) filter.push({ term: { [field]: value } });
  };
  term('site_id', req.site_id);
  term('language', req.language);
  term('brand', req.brand);
  term('category', req.category);
  term('availability', req.availability);
  if (min !== undefined || max !== undefined) filter.push({ range: { price_current: { ...(min !== undefined ? { gte: min } : {}), ...(max !== undefined ? { lte: max } : {}) } } });
  const mustNot: estypes.QueryDslQueryContainer[] = req.exclude_parents ? [{ term: { is_parent: true } }] : [];
  await deps.indices.ensure('products');
  return hybridSearch(deps, {
    index: deps.indices.alias('products'),
    query,
    limit,
    filter: { bool: { filter, must_not: mustNot } },
    textFields: PRODUCT_TEXT_FIELDS,
    keywordField: 'search_keywords',
    vectorField: 'vector_description',
    exactFields: ['sku', 'gtin'],
  });
}
