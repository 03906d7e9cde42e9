import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { AppError, parseKeepingNumbers, validationIssues, type ValidationIssue } from '@kb/common';
import type { Backends } from '../../clients/backends';
import type { RouteTable } from '../route';
import { Uuid } from '../schemas';
import { Product, ProductBulk, ProductBulkResponse, ProductCreate, SiteQuery } from '../catalog-schemas';
import { withExactDecimals } from '../exact-numbers';
import { issuesJson, productJson, requiredProduct } from '../catalog-views';

const rawJson = (text: string | undefined): unknown => (text ? parseKeepingNumbers(text) : undefined);

export function productRoutes(routes: RouteTable, backends: Backends): void {
  routes.define({
    method: 'post',
    path: '/products',
    operationId: 'upsertProduct',
    summary: 'Create or upsert a product',
    description:
      'site_id is the site uuid or slug (404 "Site not found"). With external_id, an existing product of the site is replaced (every writable field; omitted ones take their defaults; id and created_at kept) in one atomic write: 201 when created, 200 when updated. Prices and rating are kept exactly as sent (JSON numbers; strings are a 422) and answered as decimal strings. An unchanged sync_hash skips re-embedding. The answer does not wait for search indexing longer than a bound; indexing then catches up in the background.',
    tag: 'products',
    query: SiteQuery,
    body: ProductCreate,
    responses: { 200: { description: 'Updated', schema: Product }, 201: { description: 'Created', schema: Product } },
    handler: async ({ query, body, caller, ctx }) => {
      const exact = withExactDecimals(body as Record<string, unknown>, rawJson(ctx.request.rawBody));
      const res = await backends.catalog.call('UpsertProduct', { caller, site_id: query.site_id, product_json: JSON.stringify(exact) });
      const product = productJson(requiredProduct(res.product));
      return {
        status: res.status === 'created' ? 201 : 200,
        body: product,
        headers: { ...(res.status === 'created' ? { Location: `/api/knowledge/products/${product.id}` } : {}), 'X-Embeddings': res.embeddings },
      };
    },
  });

  routes.define({
    method: 'get',
    path: '/products/{product_id}',
    operationId: 'getProduct',
    summary: 'Get a product',
    tag: 'products',
    params: Type.Object({ product_id: Uuid }),
    responses: { 200: { description: 'The product', schema: Product } },
    handler: async ({ params, caller }) => ({
      body: productJson(requiredProduct((await backends.catalog.call('GetProduct', { caller, product_id: params.product_id })).product)),
    }),
  });

  routes.define({
    method: 'delete',
    path: '/products/{product_id}',
    operationId: 'deleteProduct',
    summary: 'Delete a product',
    description: 'Needs knowledge:write. The product leaves the search index too (at once, or through the background indexer).',
    tag: 'products',
    extension: true,
    params: Type.Object({ product_id: Uuid }),
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ params, caller }) => {
      await backends.catalog.call('DeleteProduct', { caller, product_id: params.product_id });
      return { status: 204, body: null };
    },
  });

  routes.define({
    method: 'post',
    path: '/products/bulk',
    operationId: 'bulkUpsertProducts',
    summary: 'Create or upsert many products of one site',
    description:
      'Up to 1,000 products (each as in upsertProduct); more is a 422 and nothing is written. Each item is validated and written on its own: per item {index, status: created|updated|unchanged|error, id, embeddings: recomputed|skipped|pending, errors?}; a bad item does not stop the others.',
    tag: 'products',
    extension: true,
    query: SiteQuery,
    body: ProductBulk,
    responses: { 200: { description: 'Per-item results', schema: ProductBulkResponse } },
    handler: async ({ query, body, caller, ctx }) => {
      const raw = (rawJson(ctx.request.rawBody) as { products?: unknown[] } | undefined)?.products ?? [];
      const local: (ValidationIssue[] | undefined)[] = [];
      const sent: { index: number; json: string }[] = [];
      body.products.forEach((item, index) => {
        const withDefaults = item && typeof item === 'object' ? Value.Default(ProductCreate, structuredClone(item)) : item;
        if (!Value.Check(ProductCreate, withDefaults)) {
          local[index] = validationIssues(ProductCreate, withDefaults, ['body', 'products', index]);
          return;
        }
        sent.push({ index, json: JSON.stringify(withExactDecimals(withDefaults as Record<string, unknown>, raw[index])) });
      });
      const res = sent.length
        ? await backends.catalog.call('BulkUpsertProducts', { caller, site_id: query.site_id, products_json: sent.map((s) => s.json) })
        : await backends.catalog.call('GetSite', { caller, site_id: query.site_id }).then(() => ({ results: [] }));
      const results = body.products.map((_, index) => {
        const issues = local[index];
        if (issues) return { index, status: 'error', id: null, embeddings: null, errors: issues };
        const k = sent.findIndex((s) => s.index === index);
        const r = res.results[k];
        if (!r) throw new AppError('internal', 'Missing bulk result');
        const errors = r.errors.length
          ? issuesJson(r.errors).map((e) => ({ ...e, loc: ['body', 'products', index, ...e.loc.slice(1)] }))
          : undefined;
        return { index, status: r.status, id: r.id || null, embeddings: r.embeddings || null, ...(errors ? { errors } : {}) };
      });
      const summary: Record<string, number> = { created: 0, updated: 0, unchanged: 0, error: 0 };
      for (const r of results) summary[r.status] = (summary[r.status] ?? 0) + 1;
      return { body: { results, summary } };
    },
  });
}
