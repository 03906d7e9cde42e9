import { Type } from '@sinclair/typebox';
import type { Backends } from '../../clients/backends';
import type { RouteTable } from '../route';
import { Uuid } from '../schemas';
import { Product, ProductBulk, ProductBulkResponse, ProductCreate, SiteQuery } from '../catalog-schemas';
import { bulkAnswer, bulkItems, rawJson } from '../catalog-requests';
import { withExactDecimals } from '../exact-numbers';
import { productJson, requiredProduct } from '../catalog-views';
import type { ReadPath } from '../../read-path/read-path';

/** Product writes; each written or deleted product is forgotten by the read path's anchor cache. */
export function productRoutes(routes: RouteTable, backends: Backends, reads?: ReadPath): void {
  const forget = (id: string | null | undefined) => id && reads?.forgetProduct(id);
  productUpsertRoute(routes, backends, forget);
  productByIdRoutes(routes, backends, forget);
  productBulkRoute(routes, backends, forget);
}

type Forget = (id: string | null | undefined) => void;

function productUpsertRoute(routes: RouteTable, backends: Backends, forget: Forget): void {
  routes.define({
    method: 'post',
    path: '/products',
    operationId: 'upsertProduct',
    summary: 'Create or upsert a product',
    description:
      'site_id is the site uuid or slug (404 "Site not found"). With external_id, an existing ' +
      'product of the site is replaced (every writable field; omitted ones take their defaults; ' +
      'id and created_at kept) in one atomic write: 201 when created, 200 when updated. Prices ' +
      'and rating are kept exactly as sent (JSON numbers; strings are a 422) and answered ' +
      'as decimal strings. An unchanged sync_hash skips re-embedding. The answer does not wait ' +
      'for search indexing longer than a bound; indexing then catches up in the background.',
    tag: 'products',
    query: SiteQuery,
    body: ProductCreate,
    responses: { 200: { description: 'Updated', schema: Product }, 201: { description: 'Created', schema: Product } },
    handler: async ({ query, body, caller, ctx }) => {
      const exact = withExactDecimals(body as Record<string, unknown>, rawJson(ctx.request.rawBody));
      const res = await backends.catalog.call('UpsertProduct', {
        caller,
        site_id: query.site_id,
        product_json: JSON.stringify(exact),
      });
      const product = productJson(requiredProduct(res.product));
      forget(product.id);
      return {
        status: res.status === 'created' ? 201 : 200,
        body: product,
        headers: {
          ...(res.status === 'created' ? { Location: `/api/knowledge/products/${product.id}` } : {}),
          'X-Embeddings': res.embeddings,
        },
      };
    },
  });
}

function productByIdRoutes(routes: RouteTable, backends: Backends, forget: Forget): void {
  routes.define({
    method: 'get',
    path: '/products/{product_id}',
    operationId: 'getProduct',
    summary: 'Get a product',
    tag: 'products',
    params: Type.Object({ product_id: Uuid }),
    responses: { 200: { description: 'The product', schema: Product } },
    handler: async ({ params, caller }) => ({
      body: productJson(
        requiredProduct((await backends.catalog.call('GetProduct', { caller, product_id: params.product_id })).product),
      ),
    }),
  });

  routes.define({
    method: 'delete',
    path: '/products/{product_id}',
    operationId: 'deleteProduct',
    summary: 'Delete a product',
    description:
      'Needs knowledge:write. The product leaves the search index too (at once, or through the background indexer).',
    tag: 'products',
    extension: true,
    params: Type.Object({ product_id: Uuid }),
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ params, caller }) => {
      await backends.catalog.call('DeleteProduct', { caller, product_id: params.product_id });
      forget(params.product_id);
      return { status: 204, body: null };
    },
  });
}

function productBulkRoute(routes: RouteTable, backends: Backends, forget: Forget): void {
  routes.define({
    method: 'post',
    path: '/products/bulk',
    operationId: 'bulkUpsertProducts',
    summary: 'Create or upsert many products of one site',
    description:
      'Up to 1,000 products (each as in upsertProduct); more is a 422 and nothing is written. Each item ' +
      'is validated and written on its own: per item {index, status: created|updated|unchanged|error, ' +
      'id, embeddings: recomputed|skipped|pending, errors?}; a bad item does not stop the others.',
    tag: 'products',
    extension: true,
    query: SiteQuery,
    body: ProductBulk,
    responses: { 200: { description: 'Per-item results', schema: ProductBulkResponse } },
    handler: async ({ query, body, caller, ctx }) => {
      const items = bulkItems(body, ctx.request.rawBody);
      // Nothing left to send still answers 404 for an unknown site, as a write would.
      const res = items.sent.length
        ? await backends.catalog.call('BulkUpsertProducts', {
            caller,
            site_id: query.site_id,
            products_json: items.sent.map((s) => s.json),
          })
        : await backends.catalog.call('GetSite', { caller, site_id: query.site_id }).then(() => ({ results: [] }));
      for (const r of res.results) forget(r.id);
      return { body: bulkAnswer(body.products.length, items, res.results) };
    },
  });
}
