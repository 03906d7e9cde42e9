import type { AnyBulkWriteOperation, UpdateQuery } from 'mongoose';
import { findOfTenantByIds, isDuplicateKey, onDuplicateKey } from '@kb/mongo';
import { AppError } from '@kb/platform';
import type { Product, ProductDeletion, ProductSet } from '../domain/types';
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
  $inc: { version: 1, index_seq: 1 },
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
      {
        $set: { parent_product_id: parents.get(ext), needs_index: true, updated_at: now },
        $inc: { version: 1, index_seq: 1 },
      },
    );
  }
  return orphans.map((c) => c._id);
}

/** Attempts of a delete before it gives up on a product rewritten under it each time. */
const DELETE_ATTEMPTS = 5;

/**
 * Deletes the product, tombstone first: the tombstone (version + 1) is written before the
 * product is deleted, conditioned on the version read, so no crash can leave a product gone
 * from MongoDB that the search index keeps (the index-only read path would serve it). A crash
 * between the two leaves a tombstone whose product is still there: the background indexer
 * finishes that delete before it applies the tombstone (`finishInterruptedDeletes`). A write
 * that bumped the version meanwhile makes the delete try again on the new version.
 */
export async function remove(models: ProductModels, tenantId: string, id: string, now: Date): Promise<Product | null> {
  const { ProductModel, ProductDeletionModel } = models;
  for (let attempt = 0; attempt < DELETE_ATTEMPTS; attempt++) {
    const doc = await ProductModel.findOne({ tenant_id: tenantId, _id: id }).lean<ProductDoc>();
    if (!doc) return null;
    await ProductDeletionModel.updateOne(
      { tenant_id: tenantId, _id: id },
      { $set: { version: doc.version + 1, deleted_at: now } },
      { upsert: true },
    );
    if (await finishDelete(models, doc, now)) return productOf(doc);
    // Gone meanwhile: the background indexer finished this delete (it found the tombstone).
    if (!(await ProductModel.exists({ tenant_id: tenantId, _id: id }))) return productOf(doc);
  }
  throw AppError.conflict('The product kept changing while it was deleted; try again');
}

/** The product's delete once its tombstone is written: the product at `doc.version`, then its children's parent link. */
async function finishDelete(
  { ProductModel }: ProductModels,
  doc: Pick<ProductDoc, '_id' | 'tenant_id' | 'site_id' | 'version'>,
  now: Date,
): Promise<boolean> {
  const res = await ProductModel.deleteOne({ tenant_id: doc.tenant_id, _id: doc._id, version: doc.version });
  if (res.deletedCount !== 1) return false;
  // Children lose their parent (the parent may come back later under the same external id).
  await ProductModel.updateMany(
    { tenant_id: doc.tenant_id, site_id: doc.site_id, parent_product_id: doc._id },
    { $set: { parent_product_id: null, needs_index: true, updated_at: now }, $inc: { version: 1, index_seq: 1 } },
  );
  return true;
}

/**
 * Before tombstones are applied to the index: a tombstone whose product is still stored at the
 * version before it is a delete a crash interrupted (finished here); one whose product was
 * written again after it (a newer version) is stale and dropped, so the index keeps the
 * product. Returns the tombstones to apply.
 */
export async function finishInterruptedDeletes(
  models: ProductModels,
  tombstones: ProductDeletion[],
  now: Date,
): Promise<ProductDeletion[]> {
  if (tombstones.length === 0) return tombstones;
  const stored = await models.products
    .find({ _id: { $in: tombstones.map((t) => t.id) } }, { projection: { tenant_id: 1, site_id: 1, version: 1 } })
    .toArray();
  if (stored.length === 0) return tombstones;
  const byId = new Map(stored.map((d) => [`${d.tenant_id}/${d._id}`, d]));
  const apply: ProductDeletion[] = [];
  for (const t of tombstones) {
    const doc = byId.get(`${t.tenant_id}/${t.id}`);
    if (!doc || (doc.version < t.version && (await finishDelete(models, doc, now)))) apply.push(t);
    else if (doc.version >= t.version)
      await models.ProductDeletionModel.deleteOne({ tenant_id: t.tenant_id, _id: t.id, version: t.version });
  }
  return apply;
}
