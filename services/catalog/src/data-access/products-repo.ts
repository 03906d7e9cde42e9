import type { Connection } from 'mongoose';
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
