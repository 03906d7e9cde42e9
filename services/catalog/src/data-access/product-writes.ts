import type { AnyBulkWriteOperation, UpdateQuery } from 'mongoose';
import { findOfTenantByIds, isDuplicateKey, onDuplicateKey } from '@kb/mongo';
import type { Product, ProductSet } from '../domain/types';
import { withDecimal128 } from './decimals';
import { productOf, type ProductDoc, type ProductModels } from './product-models';

type WriteError = { index: number; code?: number };

/** What an upsert answers: the product as written, and whether the write inserted it. */
export interface Upserted {
  doc: Product;
  created: boolean;
}

/** What `upsertMany` writes for one product: its upsert key, the id it is read back by, and the id a new product gets. */
export interface UpsertPlan {
  key: string;
  id: string;
  newId: string;
  set: ProductSet;
}

/** The one write of a product: replaces the writable fields, +1 version, keeps id and created_at. */
const upsertUpdate = (
  tenantId: string,
  siteId: string,
  key: string,
  newId: string,
  set: ProductSet,
  now: Date,
): UpdateQuery<ProductDoc> => ({
  $set: withDecimal128(set),
  $inc: { version: 1 },
  $setOnInsert: {
    _id: newId,
    tenant_id: tenantId,
    site_id: siteId,
    upsert_key: key,
    created_at: now,
    indexed_version: 0,
  },
});

/**
 * One atomic write keyed by (tenant, site, upsert key) under the unique index: replaces
 * every writable field, +1 version, keeps id and created_at. A concurrent insert of the same
 * key makes one of two upserts fail with E11000; that one is retried once (and then updates).
 */
export async function upsert(
  { ProductModel }: ProductModels,
  tenantId: string,
  siteId: string,
  key: string,
  newId: string,
  set: ProductSet,
  now: Date,
): Promise<Upserted> {
  const attempt = async () => {
    const res = await ProductModel.findOneAndUpdate(
      { tenant_id: tenantId, site_id: siteId, upsert_key: key },
      upsertUpdate(tenantId, siteId, key, newId, set, now),
      {
        upsert: true,
        returnDocument: 'after',
        includeResultMetadata: true,
        lean: true,
      },
    );
    const doc = res.value;
    if (!doc) throw new Error('upsert returned no document');
    return { doc: productOf(doc), created: !res.lastErrorObject?.updatedExisting };
  };
  return onDuplicateKey(attempt, attempt);
}

/**
 * Many upserts of one site in one round trip (unordered): the same writes as `upsert`, each
 * atomic. An item whose write failed (a concurrent insert of its key) comes back undefined
 * for the caller to retry on its own. Keys must be distinct. Each plan's `id` is the id its
 * product will have if no concurrent write of its key came first: the written products are
 * read back by `_id` (a primary-key read on any server; the local MongoDB-compatible server
 * scans the collection for a compound `$in`), and by key only those not found under it.
 */
export async function upsertMany(
  { ProductModel, products }: ProductModels,
  tenantId: string,
  siteId: string,
  plans: UpsertPlan[],
  now: Date,
): Promise<(Upserted | undefined)[]> {
  if (plans.length === 0) return [];
  const ops = plans.map((p): AnyBulkWriteOperation<ProductDoc> => ({
    updateOne: {
      filter: { tenant_id: tenantId, site_id: siteId, upsert_key: p.key },
      update: upsertUpdate(tenantId, siteId, p.key, p.newId, p.set, now),
      upsert: true,
    },
  }));
  let upserted: Record<number, unknown> = {};
  const failed = new Set<number>();
  try {
    upserted = (await ProductModel.bulkWrite(ops, { ordered: false })).upsertedIds ?? {};
  } catch (err) {
    const e = err as {
      writeErrors?: WriteError[] | WriteError;
      result?: { upsertedIds?: Record<number, unknown> };
    };
    const writeErrors =
      e.writeErrors === undefined ? [] : Array.isArray(e.writeErrors) ? e.writeErrors : [e.writeErrors];
    // Only a concurrent insert of the same key is the caller's to retry; anything else fails the bulk.
    if (writeErrors.length === 0 || !writeErrors.every(isDuplicateKey)) throw err;
    upserted = e.result?.upsertedIds ?? {};
    for (const w of writeErrors) failed.add(w.index);
  }
  const ofSite = (d: ProductDoc) => d.site_id === siteId;
  const docs = new Map(
    (
      await findOfTenantByIds<ProductDoc>(
        products,
        tenantId,
        plans.map((p) => p.id),
      )
    )
      .filter(ofSite)
      .map((d) => [d.upsert_key, d]),
  );
  const elsewhere = plans.filter((p) => docs.get(p.key)?._id !== p.id).map((p) => p.key);
  if (elsewhere.length) {
    for (const d of await ProductModel.find({
      tenant_id: tenantId,
      site_id: siteId,
      upsert_key: { $in: elsewhere },
    }).lean<ProductDoc[]>())
      docs.set(d.upsert_key, d);
  }
  return plans.map((p, i) => {
    const doc = docs.get(p.key);
    return failed.has(i) || !doc ? undefined : { doc: productOf(doc), created: upserted[i] !== undefined };
  });
}

/** Records a sync that changed nothing (last_synced_at only; no new version). */
export async function touch({ ProductModel }: ProductModels, tenantId: string, ids: string[], now: Date) {
  if (ids.length)
    await ProductModel.updateMany({ tenant_id: tenantId, _id: { $in: ids } }, { $set: { last_synced_at: now } });
}

/** Children waiting for new parents (external id → id) point at them (a new version each); returns the adopted children's ids. */
export async function adoptChildrenOf(
  { ProductModel }: ProductModels,
  tenantId: string,
  siteId: string,
  parents: Map<string, string>,
  now: Date,
): Promise<string[]> {
  if (parents.size === 0) return [];
  const children = await ProductModel.find(
    { tenant_id: tenantId, site_id: siteId, parent_external_id: { $in: [...parents.keys()] } },
    { parent_external_id: 1, parent_product_id: 1 },
  ).lean<Pick<ProductDoc, '_id' | 'parent_external_id' | 'parent_product_id'>[]>();
  const orphans = children.filter((c) => c.parent_product_id !== parents.get(c.parent_external_id as string));
  for (const ext of new Set(orphans.map((c) => c.parent_external_id as string))) {
    await ProductModel.updateMany(
      {
        tenant_id: tenantId,
        site_id: siteId,
        parent_external_id: ext,
        parent_product_id: { $ne: parents.get(ext) },
      },
      { $set: { parent_product_id: parents.get(ext), needs_index: true, updated_at: now }, $inc: { version: 1 } },
    );
  }
  return orphans.map((c) => c._id);
}

/** Deletes the product and leaves a tombstone for the index (same version + 1). */
export async function remove(
  { ProductModel, ProductDeletionModel }: ProductModels,
  tenantId: string,
  id: string,
  now: Date,
): Promise<Product | null> {
  const doc = await ProductModel.findOneAndDelete({ tenant_id: tenantId, _id: id }).lean<ProductDoc>();
  if (!doc) return null;
  await ProductDeletionModel.updateOne(
    { tenant_id: tenantId, _id: id },
    { $set: { version: doc.version + 1, deleted_at: now } },
    { upsert: true },
  );
  // Children lose their parent (the parent may come back later under the same external id).
  await ProductModel.updateMany(
    { tenant_id: tenantId, site_id: doc.site_id, parent_product_id: id },
    { $set: { parent_product_id: null, needs_index: true, updated_at: now }, $inc: { version: 1 } },
  );
  return productOf(doc);
}
