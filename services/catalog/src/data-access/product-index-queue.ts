import type { IndexBacklog } from '@kb/platform';
import type { mongo } from 'mongoose';
import {
  indexedFilter,
  mongoQueueClaims,
  readIndexBacklog,
  REFUSED,
  refusedFilter,
  unclaimed,
  withId,
} from '@kb/mongo';
import type { Product, ProductDeletion } from '../domain/types';
import { finishInterruptedDeletes } from './product-writes';
import { productOf, productsOf, type ProductDeletionDoc, type ProductDoc, type ProductModels } from './product-models';

/*
 * The background indexer works across tenants: it reads the raw collections (the tenancy guard
 * is for request paths) and always writes back with the document's own tenant_id. A refused
 * product leaves the queue (needs_index false), so it never holds up a batch.
 */

/** A product version the search index now holds, with the change counter it was read at (see @kb/indexing). */
export interface IndexedVersion {
  tenant_id: string;
  id: string;
  version: number;
  index_seq?: number;
}

/** The change that clears the queue flag of an indexed version (and its claim and any index error). */
const indexedUpdate = (version: number) => ({
  $set: { needs_index: false },
  $max: { indexed_version: version },
  $unset: { index_error: '' as const, index_claim: '' as const },
});

/** A product the search index refused, as the admin CLI lists it. */
export type RefusedProduct = Pick<ProductDoc, '_id' | 'tenant_id' | 'version' | 'needs_index' | 'index_error'>;

/**
 * markIndexed for many products (any tenants) in one round trip: for each, if `version` (and
 * the change counter read) is still the current one, needs_index false, indexed_version
 * `version` and no index error; if it changed meanwhile, only indexed_version rises to `version`
 * (never down: $max), and needs_index stays for the next pass. The claim goes either way. Filters are equalities on (tenant_id,
 * _id[, version]), each served by a unique index.
 */
export async function markIndexedMany(
  { ProductModel, products }: ProductModels,
  done: IndexedVersion[],
): Promise<void> {
  if (done.length === 0) return;
  const [one] = done;
  if (done.length === 1 && one) {
    // One product (a single write's inline indexing): the same two writes as one-product updates.
    const res = await ProductModel.updateOne(indexedFilter(one), indexedUpdate(one.version));
    if (res.matchedCount === 0)
      await ProductModel.updateOne(
        { tenant_id: one.tenant_id, _id: one.id },
        { $max: { indexed_version: one.version }, $unset: { index_claim: '' } },
      );
    return;
  }
  // Raw collection: these are the indexer's writes (across tenants; every filter names the tenant).
  const current = await products.bulkWrite(
    done.map((d) => ({
      // A product stored before the change counter has none: `null` in the filter (not in the driver's type).
      updateOne: { filter: indexedFilter(d) as mongo.Filter<ProductDoc>, update: indexedUpdate(d.version) },
    })),
    { ordered: false },
  );
  // Every one was the current version: nothing newer to account for (the usual case).
  if (current.matchedCount === done.length) return;
  await products.bulkWrite(
    done.map((d) => ({
      updateOne: {
        filter: { tenant_id: d.tenant_id, _id: d.id },
        update: { $max: { indexed_version: d.version }, $unset: { index_claim: '' as const } },
      },
    })),
    { ordered: false },
  );
}

/** Records that `version` is indexed; clears needs_index (and an index error) only if no newer write happened. */
export function markIndexed(models: ProductModels, tenantId: string, id: string, version: number): Promise<void> {
  return markIndexedMany(models, [{ tenant_id: tenantId, id, version }]);
}

export async function pendingIndex(
  { products }: ProductModels,
  limit: number,
  writtenBefore?: Date,
): Promise<Product[]> {
  const written = writtenBefore ? { updated_at: { $lt: writtenBefore } } : {};
  return productsOf(
    await products
      .find({ needs_index: true, ...written, ...unclaimed(new Date()) })
      .limit(limit)
      .toArray(),
  );
}

/** Claims on the two queues (@kb/indexing QueueClaims): products to index, deletions to apply. */
export function queueClaims({ ProductModel, ProductDeletionModel }: ProductModels) {
  return {
    documents: mongoQueueClaims(
      ProductModel.collection,
      { needs_index: true },
      (d) => productOf(d as unknown as ProductDoc),
      ProductModel,
    ),
    deletions: mongoQueueClaims(
      ProductDeletionModel.collection,
      {},
      (d) => withId(d as unknown as ProductDeletionDoc),
      ProductDeletionModel,
    ),
  };
}

/**
 * Records that the search index refused `version`: out of the queue until a new version (or
 * a retry) and the error on the product. False when a newer version was written meanwhile
 * (that one is still queued and gets its own try).
 */
export async function markRefused(
  { ProductModel }: ProductModels,
  tenantId: string,
  id: string,
  version: number,
  message: string,
  at: Date,
): Promise<boolean> {
  const res = await ProductModel.updateOne(
    { tenant_id: tenantId, _id: id, version },
    {
      $set: {
        needs_index: false,
        'index_error.message': message,
        'index_error.at': at,
        'index_error.version': version,
      },
      $inc: { 'index_error.attempts': 1 },
    },
  );
  return res.modifiedCount === 1;
}

/** Products the search index refused, newest refusal first (every tenant unless one is given). */
export function indexErrors({ products }: ProductModels, tenantId?: string): Promise<RefusedProduct[]> {
  return products
    .find<RefusedProduct>(
      { ...refusedFilter(), ...(tenantId ? { tenant_id: tenantId } : {}) },
      { projection: { tenant_id: 1, version: 1, needs_index: 1, index_error: 1 } },
    )
    .sort({ [REFUSED]: -1 })
    .toArray();
}

export function countIndexErrors({ products }: ProductModels): Promise<number> {
  return products.countDocuments(refusedFilter());
}

/** Queues refused products again (all, a tenant's, or the given ids); returns how many. */
export async function retryIndexErrors({ products }: ProductModels, tenantId?: string, ids: string[] = []) {
  return (
    await products.updateMany(
      {
        ...refusedFilter(),
        ...(tenantId ? { tenant_id: tenantId } : {}),
        ...(ids.length ? { _id: { $in: ids } } : {}),
      },
      { $set: { needs_index: true }, $inc: { index_seq: 1 } },
    )
  ).modifiedCount;
}

/** Tombstones to apply, not claimed; a delete a crash interrupted is finished first (product-writes). */
export async function pendingDeletions(models: ProductModels, limit: number): Promise<ProductDeletion[]> {
  const now = new Date();
  // Oldest first, read along the deleted_at index: the first `limit` unclaimed ones, never the whole collection.
  const read = (await models.deletions.find(unclaimed(now)).sort({ deleted_at: 1 }).limit(limit).toArray()).map((d) =>
    withId(d),
  );
  return finishInterruptedDeletes(models, read, now);
}

export function deletionDone({ ProductDeletionModel }: ProductModels, tenantId: string, id: string, version: number) {
  return ProductDeletionModel.deleteOne({ tenant_id: tenantId, _id: id, version });
}

export function indexBacklog({ ProductModel, ProductDeletionModel }: ProductModels): Promise<IndexBacklog> {
  return readIndexBacklog(ProductModel.collection, { needs_index: true }, ProductDeletionModel.collection);
}

/** How many products there are, every tenant together (a reindex's progress): the collection's count, no document read. */
export function countAll({ products }: ProductModels): Promise<number> {
  return products.estimatedDocumentCount();
}

/** Marks products written since `since` for the background indexer (after a reindex). */
export async function markChangedSince({ products }: ProductModels, since: Date): Promise<number> {
  return (
    await products.updateMany({ updated_at: { $gte: since } }, { $set: { needs_index: true }, $inc: { index_seq: 1 } })
  ).modifiedCount;
}

/** Every product of every tenant, in id order, for a reindex. */
export async function allAfter({ products }: ProductModels, afterId: string, limit: number): Promise<Product[]> {
  return productsOf(
    await products
      .find({ _id: { $gt: afterId } })
      .sort({ _id: 1 })
      .limit(limit)
      .toArray(),
  );
}
