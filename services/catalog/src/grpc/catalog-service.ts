import { AppError, BULK_LIMIT, incomingDeadline, isUuid, unary, requireCaller, requireScope, type Logger, type catalogV1 } from '@kb/common';
import { createSite, deleteSite, siteMessage, updateSite } from '../domain/sites';
import { bulkUpsert, deleteProduct, requireSite, upsertProduct, type CatalogDeps } from '../domain/products';
import { assertProductInput } from '../domain/product-input';
import { issueMessages, productMessage } from '../domain/product-view';
import { searchProducts, similarProducts } from '../domain/search';

function parseJson(text: string, loc: (string | number)[]): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw AppError.invalid([{ loc, msg: 'Invalid JSON', type: 'json_invalid' }]);
  }
}

export function catalogServiceImpl(deps: CatalogDeps & { logger: Logger }): catalogV1.CatalogServiceHandlers {
  const { logger } = deps;
  return {
    ListSites: unary(logger, 'ListSites', async (req: catalogV1.ListSitesRequest__Output) => {
      const caller = requireCaller(req.caller);
      requireScope(caller, 'knowledge:read');
      return { sites: (await deps.sites.list(caller.tenant_id)).map(siteMessage) };
    }),
    GetSite: unary(logger, 'GetSite', async (req: catalogV1.GetSiteRequest__Output) => {
      const caller = requireCaller(req.caller);
      requireScope(caller, 'knowledge:read');
      return siteMessage(await requireSite(deps, caller.tenant_id, req.site_id));
    }),
    CreateSite: unary(logger, 'CreateSite', async (req: catalogV1.CreateSiteRequest__Output) => {
      const caller = requireCaller(req.caller);
      requireScope(caller, 'knowledge:write');
      return siteMessage(await createSite(deps.sites, caller.tenant_id, req));
    }),
    UpdateSite: unary(logger, 'UpdateSite', async (req: catalogV1.UpdateSiteRequest__Output) => {
      const caller = requireCaller(req.caller);
      requireScope(caller, 'knowledge:write');
      return siteMessage(await updateSite(deps.sites, caller.tenant_id, req));
    }),
    DeleteSite: unary(logger, 'DeleteSite', async (req: catalogV1.DeleteSiteRequest__Output) => {
      const caller = requireCaller(req.caller);
      requireScope(caller, 'knowledge:admin');
      await deleteSite(deps.sites, deps.products, caller.tenant_id, req.site_id);
      return { id: req.site_id };
    }),

    UpsertProduct: unary(logger, 'UpsertProduct', async (req: catalogV1.UpsertProductRequest__Output) => {
      const caller = requireCaller(req.caller);
      requireScope(caller, 'knowledge:write');
      const input = assertProductInput(parseJson(req.product_json, ['body']));
      const res = await upsertProduct(deps, caller.tenant_id, req.site_id, input, incomingDeadline());
      return { product: productMessage(res.doc), status: res.status, embeddings: res.embeddings };
    }),
    BulkUpsertProducts: unary(logger, 'BulkUpsertProducts', async (req: catalogV1.BulkUpsertProductsRequest__Output) => {
      const caller = requireCaller(req.caller);
      requireScope(caller, 'knowledge:write');
      if (req.products_json.length > BULK_LIMIT) {
        throw AppError.invalid([{ loc: ['body', 'products'], msg: `List should have at most ${BULK_LIMIT} items after validation, not ${req.products_json.length}`, type: 'too_long' }]);
      }
      const site = await requireSite(deps, caller.tenant_id, req.site_id);
      const items = req.products_json.map((text, i) => {
        try {
          return { value: JSON.parse(text) as unknown };
        } catch {
          return { issues: [{ loc: [i], msg: 'Invalid JSON', type: 'json_invalid' }] };
        }
      });
      const results = await bulkUpsert(deps, caller.tenant_id, site, items, { deadline: incomingDeadline() });
      return {
        results: results.map((r) => ({
          index: r.index,
          status: r.status,
          id: r.id ?? '',
          embeddings: r.embeddings ?? '',
          errors: r.errors ? issueMessages(r.errors) : [],
        })),
      };
    }),
    GetProduct: unary(logger, 'GetProduct', async (req: catalogV1.GetProductRequest__Output) => {
      const caller = requireCaller(req.caller);
      requireScope(caller, 'knowledge:read');
      const doc = isUuid(req.product_id) ? await deps.products.findById(caller.tenant_id, req.product_id) : null;
      if (!doc) throw AppError.notFound('Product not found');
      return { product: productMessage(doc) };
    }),
    DeleteProduct: unary(logger, 'DeleteProduct', async (req: catalogV1.DeleteProductRequest__Output) => {
      const caller = requireCaller(req.caller);
      requireScope(caller, 'knowledge:write');
      await deleteProduct(deps, caller.tenant_id, req.product_id);
      return { id: req.product_id };
    }),

    SimilarProducts: unary(logger, 'SimilarProducts', async (req: catalogV1.SimilarProductsRequest__Output) => {
      const caller = requireCaller(req.caller);
      requireScope(caller, 'knowledge:read');
      return similarProducts(deps, caller, req);
    }),
    SearchProducts: unary(logger, 'SearchProducts', async (req: catalogV1.SearchProductsRequest__Output) => {
      const caller = requireCaller(req.caller);
      requireScope(caller, 'knowledge:read');
      return searchProducts(deps, caller, req);
    }),
  };
}
