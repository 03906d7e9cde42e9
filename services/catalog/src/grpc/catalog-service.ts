import {
  incomingDeadline,
  requireCaller,
  unaryMapping,
  type ErrorMapper,
  type Logger,
  type catalogV1,
} from '@kb/platform';
import { createSite, deleteSite, getSite, listSites, updateSite } from '../domain/sites';
import { bulkUpsertProducts, deleteProduct, getProduct, upsertProduct, type CatalogDeps } from '../domain/products';
import type { DecodedProduct } from '../domain/product-input';
import { issueMessages, productHitMessage, productMessage } from './product-message';
import { searchProducts, similarProducts } from '../domain/search';
import { siteMessage } from './site-message';

/** A JSON text as a value, or the issue saying it is not JSON (the use case answers it after its scope check). */
function decodeJson(text: string, loc: (string | number)[]): DecodedProduct {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return { issues: [{ loc, msg: 'Invalid JSON', type: 'json_invalid' }] };
  }
}

/**
 * Each method: decode the request, call one use case (which checks the caller's scope), map the
 * answer. `mapError` turns what the storage throws into the error model (MongoDB not reachable: UNAVAILABLE);
 * `requireUp` refuses every call at once while MongoDB is known down.
 */
export function catalogServiceImpl(
  deps: CatalogDeps & { logger: Logger },
  mapError: ErrorMapper,
  requireUp?: () => void,
): catalogV1.CatalogServiceHandlers {
  const { logger } = deps;
  const unary = unaryMapping(mapError, requireUp);
  return {
    ListSites: unary(logger, 'ListSites', async (req: catalogV1.ListSitesRequest__Output) => ({
      sites: (await listSites(deps, requireCaller(req.caller))).map(siteMessage),
    })),
    GetSite: unary(logger, 'GetSite', async (req: catalogV1.GetSiteRequest__Output) =>
      siteMessage(await getSite(deps, requireCaller(req.caller), req.site_id)),
    ),
    CreateSite: unary(logger, 'CreateSite', async (req: catalogV1.CreateSiteRequest__Output) =>
      siteMessage(await createSite(deps, requireCaller(req.caller), req)),
    ),
    UpdateSite: unary(logger, 'UpdateSite', async (req: catalogV1.UpdateSiteRequest__Output) =>
      siteMessage(await updateSite(deps, requireCaller(req.caller), req)),
    ),
    DeleteSite: unary(logger, 'DeleteSite', async (req: catalogV1.DeleteSiteRequest__Output) => {
      await deleteSite(deps, requireCaller(req.caller), req.site_id);
      return { id: req.site_id };
    }),

    UpsertProduct: unary(logger, 'UpsertProduct', async (req: catalogV1.UpsertProductRequest__Output) => {
      const res = await upsertProduct(
        deps,
        requireCaller(req.caller),
        req.site_id,
        decodeJson(req.product_json, ['body']),
        incomingDeadline(),
      );
      return { product: productMessage(res.doc), status: res.status, embeddings: res.embeddings };
    }),
    BulkUpsertProducts: unary(
      logger,
      'BulkUpsertProducts',
      async (req: catalogV1.BulkUpsertProductsRequest__Output) => {
        const caller = requireCaller(req.caller);
        const items = req.products_json.map((text, i) => decodeJson(text, [i]));
        const results = await bulkUpsertProducts(deps, caller, req.site_id, items, incomingDeadline());
        return {
          results: results.map((r) => ({
            index: r.index,
            status: r.status,
            id: r.id ?? '',
            embeddings: r.embeddings ?? '',
            errors: r.errors ? issueMessages(r.errors) : [],
          })),
        };
      },
    ),
    GetProduct: unary(logger, 'GetProduct', async (req: catalogV1.GetProductRequest__Output) => ({
      product: productMessage(await getProduct(deps, requireCaller(req.caller), req.product_id)),
    })),
    DeleteProduct: unary(logger, 'DeleteProduct', async (req: catalogV1.DeleteProductRequest__Output) => {
      await deleteProduct(deps, requireCaller(req.caller), req.product_id);
      return { id: req.product_id };
    }),

    SimilarProducts: unary(logger, 'SimilarProducts', async (req: catalogV1.SimilarProductsRequest__Output) => {
      const res = await similarProducts(deps, requireCaller(req.caller), req);
      return { ...res, hits: res.hits.map(productHitMessage) };
    }),
    SearchProducts: unary(logger, 'SearchProducts', async (req: catalogV1.SearchProductsRequest__Output) => ({
      hits: (await searchProducts(deps, requireCaller(req.caller), req)).hits.map(productHitMessage),
    })),
  };
}
