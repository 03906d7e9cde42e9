import type { Connection } from 'mongoose';
import { byIdQuery, indexBacklogQueries, queueClaimQueries, REFUSED, type QueryShape } from '@kb/mongo';
import type { ProductSet } from '../domain/types';
import * as indexQueue from './product-index-queue';
import { productModels } from './product-models';
import * as reads from './product-reads';
import * as writes from './product-writes';

/**
 * The products repository the domain uses (CatalogDeps.products): the queries of
 * product-reads.ts, product-writes.ts and product-index-queue.ts over one connection's models
 * (product-models.ts).
 */
export function productsRepo(connection: Connection) {
  const models = productModels(connection);
  return {
    ensureIndexes: async () => {
      await models.ProductModel.createIndexes();
      await models.ProductDeletionModel.createIndexes();
    },

    // Reads (product-reads.ts)
    findById: (tenantId: string, id: string) => reads.findById(models, tenantId, id),
    findByIds: (tenantId: string, ids: string[]) => reads.findByIds(models, tenantId, ids),
    existingIds: (tenantId: string, ids: string[]) => reads.existingIds(models, tenantId, ids),
    findByKey: (tenantId: string, siteId: string, key: string) => reads.findByKey(models, tenantId, siteId, key),
    findByKeys: (tenantId: string, siteId: string, keys: string[]) => reads.findByKeys(models, tenantId, siteId, keys),
    countInSite: (tenantId: string, siteId: string) => reads.countInSite(models, tenantId, siteId),

    // Writes (product-writes.ts)
    upsert: (tenantId: string, siteId: string, key: string, newId: string, set: ProductSet, now: Date) =>
      writes.upsert(models, tenantId, siteId, key, newId, set, now),
    upsertMany: (tenantId: string, siteId: string, plans: writes.UpsertPlan[], now: Date) =>
      writes.upsertMany(models, tenantId, siteId, plans, now),
    touch: (tenantId: string, ids: string[], now: Date) => writes.touch(models, tenantId, ids, now),
    adoptChildrenOf: (tenantId: string, siteId: string, parents: Map<string, string>, now: Date) =>
      writes.adoptChildrenOf(models, tenantId, siteId, parents, now),
    remove: (tenantId: string, id: string, now: Date) => writes.remove(models, tenantId, id, now),

    // The indexer's queue, refusals and reindex pages (product-index-queue.ts)
    markIndexed: (tenantId: string, id: string, version: number) =>
      indexQueue.markIndexed(models, tenantId, id, version),
    markIndexedMany: (done: indexQueue.IndexedVersion[]) => indexQueue.markIndexedMany(models, done),
    pendingIndex: (limit: number, writtenBefore?: Date) => indexQueue.pendingIndex(models, limit, writtenBefore),
    queueClaims: indexQueue.queueClaims(models),
    markRefused: (tenantId: string, id: string, version: number, message: string, at: Date) =>
      indexQueue.markRefused(models, tenantId, id, version, message, at),
    indexErrors: (tenantId?: string) => indexQueue.indexErrors(models, tenantId),
    countIndexErrors: () => indexQueue.countIndexErrors(models),
    retryIndexErrors: (tenantId?: string, ids: string[] = []) => indexQueue.retryIndexErrors(models, tenantId, ids),
    pendingDeletions: (limit: number) => indexQueue.pendingDeletions(models, limit),
    deletionDone: (tenantId: string, id: string, version: number) =>
      indexQueue.deletionDone(models, tenantId, id, version),
    indexBacklog: () => indexQueue.indexBacklog(models),
    countAll: () => indexQueue.countAll(models),
    markChangedSince: (since: Date) => indexQueue.markChangedSince(models, since),
    allAfter: (afterId: string, limit: number) => indexQueue.allAfter(models, afterId, limit),
  };
}
export type ProductsRepo = ReturnType<typeof productsRepo>;

const PRODUCTS = 'products';
const DELETIONS = 'product_deletions';
/** One product of a site by its upsert key (the unique index). */
const BY_KEY = ['tenant_id', 'site_id', 'upsert_key'];

/**
 * Every query of product-reads.ts, product-writes.ts and product-index-queue.ts, as an index
 * sees it (@kb/mongo query-shapes; docs/mongodb.md).
 */
export const PRODUCT_QUERIES: QueryShape[] = [
  byIdQuery(
    PRODUCTS,
    'findOfTenantByIds: findById, findByIds, existingIds, upsertMany read-back, finishInterruptedDeletes',
  ),
  {
    collection: PRODUCTS,
    query: 'remove, finishDelete, touch, markRefused, markIndexedMany (tenant and id)',
    eq: ['tenant_id', '_id'],
    residual: ['version', 'index_seq'],
  },
  { collection: PRODUCTS, query: 'upsert, upsertMany, findByKey, findByKeys', eq: BY_KEY },
  { collection: PRODUCTS, query: 'countInSite', eq: ['tenant_id', 'site_id'] },
  {
    collection: PRODUCTS,
    query: 'adoptChildrenOf',
    eq: ['tenant_id', 'site_id', 'parent_external_id'],
    residual: ['parent_product_id'],
  },
  { collection: PRODUCTS, query: 'finishDelete: its children', eq: ['tenant_id', 'site_id', 'parent_product_id'] },
  {
    collection: PRODUCTS,
    query: 'pendingIndex',
    eq: ['needs_index'],
    range: ['updated_at'],
    residual: ['index_claim', 'index_claim.until'],
  },
  {
    collection: PRODUCTS,
    query: 'pendingIndex, every write',
    eq: ['needs_index'],
    residual: ['index_claim', 'index_claim.until'],
  },
  { collection: PRODUCTS, query: 'markChangedSince', range: ['updated_at'] },
  { collection: PRODUCTS, query: 'allAfter', sort: { _id: 1 }, range: ['_id'] },
  {
    collection: PRODUCTS,
    query: 'indexErrors, countIndexErrors, retryIndexErrors',
    exists: [REFUSED],
    residual: ['tenant_id', '_id'],
  },
  { collection: PRODUCTS, query: 'indexErrors', exists: [REFUSED], sort: { [REFUSED]: -1 }, residual: ['tenant_id'] },
  queueClaimQueries(PRODUCTS, ['needs_index']),
  ...indexBacklogQueries(PRODUCTS, 'needs_index', DELETIONS),
  byIdQuery(DELETIONS, 'remove (the tombstone), deletionDone, finishInterruptedDeletes', ['version']),
  queueClaimQueries(DELETIONS, []),
  {
    collection: DELETIONS,
    query: 'pendingDeletions',
    sort: { deleted_at: 1 },
    residual: ['index_claim', 'index_claim.until'],
  },
];
