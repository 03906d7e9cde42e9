import { requireScope, type Caller, type catalogV1, type DependencyWatch } from '@kb/platform';
import {
  fusionCandidates,
  SEARCH_DEFAULT_LIMIT,
  elasticsearchErrorType,
  hybridMatches,
  PRODUCT_SEARCH,
  productFilter,
  rankHybrid,
  type ElasticsearchClient,
} from '@kb/search';
import type { QueryVector } from './query-vectors';
import type { SiteId } from './site-ids';
import { productsAlias, type DescribeModel } from './similarity-model';

/** What a product search reads (read-path.ts makes one for the gateway). */
export interface ProductSearchState {
  es: ElasticsearchClient;
  /** The gateway's own watch of Elasticsearch: known down, a search is a 503 at once. */
  esWatch: DependencyWatch;
  describe: DescribeModel;
  siteId: SiteId;
  queryVector: QueryVector;
}

/** The product search answered from the index; undefined when the index cannot answer it alone. */
export async function productSearch(
  state: ProductSearchState,
  caller: Caller,
  req: catalogV1.SearchProductsRequest,
): Promise<catalogV1.ProductSearchHit__Output[] | undefined> {
  const { es } = state;
  requireScope(caller, 'knowledge:read');
  state.esWatch.assertUp();
  const index = await productsAlias(state.describe, caller);
  const priceMin = req.price_min ? Number(req.price_min) : undefined;
  const priceMax = req.price_max ? Number(req.price_max) : undefined;
  // The catalog's path answers what the index cannot decide alone (a price range that is a 422).
  if (!index || (priceMin !== undefined && priceMax !== undefined && priceMin > priceMax)) return undefined;
  const site = req.site_id !== undefined ? await state.siteId(caller, req.site_id) : undefined;
  const query = req.query!.trim();
  const limit = req.limit || SEARCH_DEFAULT_LIMIT;
  const filter = productFilter(caller.tenant_id, {
    site_id: site,
    language: req.language,
    brand: req.brand,
    category: req.category,
    availability: req.availability,
    priceMin,
    priceMax,
    excludeParents: req.settings?.variant_strategy === 'children_only',
  });
  let matches;
  try {
    matches = await hybridMatches(es, {
      index,
      query,
      size: fusionCandidates(limit),
      limit,
      filter,
      fields: PRODUCT_SEARCH,
      queryVector: await state.queryVector(caller, query),
      sourceFields: ['hit'],
    });
  } catch (err) {
    if (elasticsearchErrorType(err) === 'index_not_found_exception') return undefined;
    throw err;
  }
  const ranked = rankHybrid(matches, limit);
  const hits: catalogV1.ProductSearchHit__Output[] = [];
  for (const h of ranked) {
    const hit = matches.sources?.get(h.id)?.['hit'] as catalogV1.ProductSearchHit__Output | undefined;
    if (!hit) return undefined; // indexed before the index kept hits: the catalog answers
    hits.push({ ...hit, score: h.score, score_sources: h.score_sources });
  }
  return hits;
}
