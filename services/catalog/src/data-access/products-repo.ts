import { Schema, type Connection, type Model } from 'mongoose';
import { type IndexBacklog } from '@kb/platform';
import { PRODUCT_DEFAULTS, type DecimalField } from '@kb/rules';
import {
  findOfTenantByIds,
  indexErrorPath,
  isDuplicateKey,
  onDuplicateKey,
  readIndexBacklog,
  tenantScoped,
  withId,
} from '@kb/mongo';
import type { Product, ProductDeletion, ProductSet } from '../domain/types';
import { withDecimal128, withDecimalText, type StoredDecimals } from './decimals';

/** A stored product: the domain's Product (domain/types.ts) with `_id` for `id`, prices and rating as Decimal128. */
export type ProductDoc = Omit<Product, 'id' | DecimalField> & StoredDecimals & { _id: string };

/** A deleted product still to be removed from the search index. */
export type ProductDeletionDoc = Omit<ProductDeletion, 'id'> & { _id: string };

const productOf = (d: ProductDoc): Product => withDecimalText(withId(d)) as Product;
const productsOf = (docs: ProductDoc[]): Product[] => docs.map(productOf);

const S = { type: String, default: null };
const D = { type: Schema.Types.Decimal128, default: null };
// Typed as a record of every ProductDoc key: a field added to the input schema (and so to
// ProductFields) does not compile until it has a path here.
const productPaths = {
  _id: { type: String, required: true },
  tenant_id: { type: String, required: true },
  site_id: { type: String, required: true },
  upsert_key: { type: String, required: true },
  external_id: S,
  title: { type: String, required: true },
  description: S,
  short_description: S,
  sku: S,
  gtin: S,
  brand: S,
  category: S,
  attributes: { type: Schema.Types.Mixed, default: {} },
  properties: { type: Schema.Types.Mixed, default: {} },
  price_current: D,
  price_msrp: D,
  price_special: D,
  price_on_request: { type: Boolean, default: PRODUCT_DEFAULTS.price_on_request },
  currency: { type: String, default: PRODUCT_DEFAULTS.currency },
  image_url: S,
  product_url: S,
  additional_images: { type: [String], default: [] },
  availability: S,
  rating_average: D,
  rating_count: { type: Number, default: PRODUCT_DEFAULTS.rating_count },
  language: { type: String, required: true },
  translation_group_id: S,
  parent_external_id: S,
  parent_product_id: S,
  is_variant: { type: Boolean, default: PRODUCT_DEFAULTS.is_variant },
  is_parent: { type: Boolean, default: PRODUCT_DEFAULTS.is_parent },
  similarity_text: S,
  has_similarity_anchor: { type: Boolean, default: false },
  search_keywords: { type: [String], default: [] },
  embedding_text_description: S,
  embedding_text_properties: S,
  embedding_text_attributes: S,
  sync_hash: S,
  source: { type: String, default: 'api' },
  version: { type: Number, required: true },
  indexed_version: { type: Number, default: 0 },
  needs_index: { type: Boolean, default: true },
  index_error: indexErrorPath(),
  reuse_vectors: { type: Boolean, default: false },
  last_synced_at: { type: Date, default: null },
  created_at: { type: Date, required: true },
  updated_at: { type: Date, required: true },
} satisfies Record<keyof ProductDoc, unknown>;
const productSchema = new Schema<ProductDoc>(productPaths, {
  collection: 'products',
  versionKey: false,
  minimize: false,
  autoIndex: false,
});
productSchema.plugin(tenantScoped);
// The upsert key: concurrent upserts of one external id leave exactly one product.
productSchema.index({ tenant_id: 1, site_id: 1, upsert_key: 1 }, { unique: true });
productSchema.index({ tenant_id: 1, site_id: 1, parent_external_id: 1 });
// The indexer's queue; with updated_at, the oldest waiting product is one index read (metrics).
productSchema.index({ needs_index: 1, updated_at: 1 });
// What markIndexed filters on, as equality filters: a product by tenant and id, and a product at
// a version. Unique by construction (_id is); unique also because a server that plans only with
// unique indexes whose keys are exactly the filter's (mongo-java-server) then serves these
// writes from the index instead of scanning the collection once per product.
productSchema.index({ tenant_id: 1, _id: 1 }, { unique: true });
productSchema.index({ tenant_id: 1, _id: 1, version: 1 }, { unique: true });

const deletionSchema = new Schema<ProductDeletionDoc>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    version: { type: Number, required: true },
    deleted_at: { type: Date, required: true },
  },
  { collection: 'product_deletions', versionKey: false, autoIndex: false },
);
deletionSchema.plugin(tenantScoped);
deletionSchema.index({ deleted_at: 1 });

export function productModels(connection: Connection) {
  const ProductModel: Model<ProductDoc> =
    (connection.models.Product as Model<ProductDoc> | undefined) ??
    connection.model<ProductDoc>('Product', productSchema);
  const ProductDeletionModel: Model<ProductDeletionDoc> =
    (connection.models.ProductDeletion as Model<ProductDeletionDoc> | undefined) ??
    connection.model<ProductDeletionDoc>('ProductDeletion', deletionSchema);
  return { ProductModel, ProductDeletionModel };
}

type WriteError = { index: number; code?: number };

/** The one write of a product: replaces the writable fields, +1 version, keeps id and created_at. */
const upsertUpdate = (tenantId: string, siteId: string, key: string, newId: string, set: ProductSet, now: Date) => ({
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

// One factory of short methods over the two models (rather than a module per query): every
// method closes over the connection's models, and ProductsRepo is its return type.
export function productsRepo(connection: Connection) {
  const { ProductModel, ProductDeletionModel } = productModels(connection);
  async function markIndexedMany(done: { tenant_id: string; id: string; version: number }[]): Promise<void> {
    if (done.length === 0) return;
    const [one] = done;
    if (done.length === 1 && one) {
      // One product (a single write's inline indexing): the same two writes as one-product updates.
      const res = await ProductModel.updateOne(
        { tenant_id: one.tenant_id, _id: one.id, version: one.version },
        { $set: { needs_index: false }, $max: { indexed_version: one.version }, $unset: { index_error: '' } },
      );
      if (res.matchedCount === 0)
        await ProductModel.updateOne(
          { tenant_id: one.tenant_id, _id: one.id },
          { $max: { indexed_version: one.version } },
        );
      return;
    }
    // Raw collection: these are the indexer's writes (across tenants; every filter names the tenant).
    const current = await ProductModel.collection.bulkWrite(
      done.map((d) => ({
        updateOne: {
          filter: { tenant_id: d.tenant_id, _id: d.id, version: d.version },
          update: { $set: { needs_index: false }, $max: { indexed_version: d.version }, $unset: { index_error: '' } },
        },
      })) as never,
      { ordered: false },
    );
    // Every one was the current version: nothing newer to account for (the usual case).
    if (current.matchedCount === done.length) return;
    await ProductModel.collection.bulkWrite(
      done.map((d) => ({
        updateOne: { filter: { tenant_id: d.tenant_id, _id: d.id }, update: { $max: { indexed_version: d.version } } },
      })) as never,
      { ordered: false },
    );
  }
  return {
    ensureIndexes: async () => {
      await ProductModel.createIndexes();
      await ProductDeletionModel.createIndexes();
    },
    // By id through findOfTenantByIds: answered from the _id index on the local server too.
    findById: async (tenantId: string, id: string): Promise<Product | null> =>
      productsOf(await findOfTenantByIds<ProductDoc>(ProductModel.collection, tenantId, [id]))[0] ?? null,
    findByIds: async (tenantId: string, ids: string[]): Promise<Product[]> =>
      productsOf(await findOfTenantByIds<ProductDoc>(ProductModel.collection, tenantId, ids)),
    /** Which of `ids` are the tenant's products (ids only). */
    existingIds: async (tenantId: string, ids: string[]) =>
      (await findOfTenantByIds<ProductDoc>(ProductModel.collection, tenantId, ids, { _id: 1 })).map((d) => d._id),
    findByKey: async (tenantId: string, siteId: string, key: string): Promise<Product | null> => {
      const doc = await ProductModel.findOne({
        tenant_id: tenantId,
        site_id: siteId,
        upsert_key: key,
      }).lean<ProductDoc>();
      return doc ? productOf(doc) : null;
    },
    countInSite: (tenantId: string, siteId: string) =>
      ProductModel.countDocuments({ tenant_id: tenantId, site_id: siteId }),

    /**
     * One atomic write keyed by (tenant, site, upsert key) under the unique index: replaces
     * every writable field, +1 version, keeps id and created_at. A concurrent insert of the same
     * key makes one of two upserts fail with E11000; that one is retried once (and then updates).
     */
    async upsert(
      tenantId: string,
      siteId: string,
      key: string,
      newId: string,
      set: ProductSet,
      now: Date,
    ): Promise<{ doc: Product; created: boolean }> {
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
        const doc = res.value as ProductDoc | null;
        if (!doc) throw new Error('upsert returned no document');
        return { doc: productOf(doc), created: !res.lastErrorObject?.updatedExisting };
      };
      return onDuplicateKey(attempt, attempt);
    },
    /**
     * Many upserts of one site in one round trip (unordered): the same writes as `upsert`, each
     * atomic. An item whose write failed (a concurrent insert of its key) comes back undefined
     * for the caller to retry on its own. Keys must be distinct. Each plan's `id` is the id its
     * product will have if no concurrent write of its key came first: the written products are
     * read back by `_id` (a primary-key read on any server; the local MongoDB-compatible server
     * scans the collection for a compound `$in`), and by key only those not found under it.
     */
    async upsertMany(
      tenantId: string,
      siteId: string,
      plans: { key: string; id: string; newId: string; set: ProductSet }[],
      now: Date,
    ): Promise<({ doc: Product; created: boolean } | undefined)[]> {
      if (plans.length === 0) return [];
      const ops = plans.map((p) => ({
        updateOne: {
          filter: { tenant_id: tenantId, site_id: siteId, upsert_key: p.key },
          update: upsertUpdate(tenantId, siteId, p.key, p.newId, p.set, now),
          upsert: true,
        },
      }));
      let upserted: Record<number, unknown> = {};
      const failed = new Set<number>();
      try {
        upserted = (await ProductModel.bulkWrite(ops as never, { ordered: false })).upsertedIds ?? {};
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
            ProductModel.collection,
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
    },
    /** Records a sync that changed nothing (last_synced_at only; no new version). */
    touch: async (tenantId: string, ids: string[], now: Date) => {
      if (ids.length)
        await ProductModel.updateMany({ tenant_id: tenantId, _id: { $in: ids } }, { $set: { last_synced_at: now } });
    },
    /** Products of a site by upsert key (external_id, or the id when there is none), in one query. */
    findByKeys: async (tenantId: string, siteId: string, keys: string[]): Promise<Product[]> =>
      keys.length
        ? productsOf(
            await ProductModel.find({ tenant_id: tenantId, site_id: siteId, upsert_key: { $in: keys } }).lean<
              ProductDoc[]
            >(),
          )
        : [],
    /** Children waiting for new parents (external id → id) point at them (a new version each); returns the adopted children's ids. */
    async adoptChildrenOf(
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
    },
    /** Records that `version` is indexed; clears needs_index (and an index error) only if no newer write happened. */
    markIndexed: (tenantId: string, id: string, version: number): Promise<void> =>
      markIndexedMany([{ tenant_id: tenantId, id, version }]),
    /**
     * markIndexed for many products (any tenants) in one round trip: for each, if `version` is
     * still the current one, needs_index false, indexed_version `version` and no index error;
     * if a newer version was written meanwhile, only indexed_version rises to `version` (never
     * down: $max), and needs_index stays for the newer one. Filters are equalities on (tenant_id,
     * _id[, version]), each served by a unique index.
     */
    markIndexedMany,
    /** Deletes the product and leaves a tombstone for the index (same version + 1). */
    async remove(tenantId: string, id: string, now: Date): Promise<Product | null> {
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
    },
    // The background indexer works across tenants: it reads the raw collections (the tenancy
    // guard is for request paths) and always writes back with the document's own tenant_id.
    // A refused product leaves the queue (needs_index false), so it never holds up a batch.
    pendingIndex: async (limit: number): Promise<Product[]> =>
      productsOf(
        (await ProductModel.collection.find({ needs_index: true }).limit(limit).toArray()) as unknown as ProductDoc[],
      ),
    /**
     * Records that the search index refused `version`: out of the queue until a new version (or
     * a retry) and the error on the product. False when a newer version was written meanwhile
     * (that one is still queued and gets its own try).
     */
    async markRefused(tenantId: string, id: string, version: number, message: string, at: Date): Promise<boolean> {
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
    },
    /** Products the search index refused, newest refusal first (every tenant unless one is given). */
    indexErrors: (tenantId?: string) =>
      ProductModel.collection
        .find(
          { index_error: { $exists: true }, ...(tenantId ? { tenant_id: tenantId } : {}) },
          { projection: { tenant_id: 1, version: 1, needs_index: 1, index_error: 1 } },
        )
        .sort({ 'index_error.at': -1 })
        .toArray() as unknown as Promise<
        Pick<ProductDoc, '_id' | 'tenant_id' | 'version' | 'needs_index' | 'index_error'>[]
      >,
    countIndexErrors: () => ProductModel.collection.countDocuments({ index_error: { $exists: true } }),
    /** Queues refused products again (all, a tenant's, or the given ids); returns how many. */
    retryIndexErrors: async (tenantId?: string, ids: string[] = []) =>
      (
        await ProductModel.collection.updateMany(
          {
            index_error: { $exists: true },
            ...(tenantId ? { tenant_id: tenantId } : {}),
            ...(ids.length ? { _id: { $in: ids } } : {}),
          } as never,
          { $set: { needs_index: true } },
        )
      ).modifiedCount,
    pendingDeletions: async (limit: number): Promise<ProductDeletion[]> =>
      ((await ProductDeletionModel.collection.find({}).limit(limit).toArray()) as unknown as ProductDeletionDoc[]).map(
        (d) => withId(d),
      ),
    deletionDone: (tenantId: string, id: string, version: number) =>
      ProductDeletionModel.deleteOne({ tenant_id: tenantId, _id: id, version }),
    indexBacklog: (): Promise<IndexBacklog> =>
      readIndexBacklog(ProductModel.collection, { needs_index: true }, ProductDeletionModel.collection),
    countAll: () => ProductModel.collection.countDocuments({}),
    /** Marks products written since `since` for the background indexer (after a reindex). */
    markChangedSince: async (since: Date) =>
      (await ProductModel.collection.updateMany({ updated_at: { $gte: since } }, { $set: { needs_index: true } }))
        .modifiedCount,
    /** Every product of every tenant, in id order, for a reindex. */
    allAfter: async (afterId: string, limit: number): Promise<Product[]> =>
      productsOf(
        (await ProductModel.collection
          .find({ _id: { $gt: afterId } } as never)
          .sort({ _id: 1 })
          .limit(limit)
          .toArray()) as unknown as ProductDoc[],
      ),
  };
}
export type ProductsRepo = ReturnType<typeof productsRepo>;
