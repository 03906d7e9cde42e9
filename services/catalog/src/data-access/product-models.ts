import { Schema, type Collection, type Connection, type Model } from 'mongoose';
import { PRODUCT_DEFAULTS, type DecimalField } from '@kb/rules';
import { indexErrorIndex, indexErrorPath, queuePaths, tenantScoped, withId } from '@kb/mongo';
import type { Product, ProductDeletion } from '../domain/types';
import { withDecimalText, type StoredDecimals } from './decimals';

/** A stored product: the domain's Product (domain/types.ts) with `_id` for `id`, prices and rating as Decimal128. */
export type ProductDoc = Omit<Product, 'id' | DecimalField> & StoredDecimals & { _id: string };

/** A deleted product still to be removed from the search index. */
export type ProductDeletionDoc = Omit<ProductDeletion, 'id'> & { _id: string };

export const productOf = (d: ProductDoc): Product => withDecimalText(withId(d)) as Product;
export const productsOf = (docs: ProductDoc[]): Product[] => docs.map(productOf);

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
  ...queuePaths(),
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
// Children by their parent: waiting for it by external id (adopted when it arrives), and by id (freed when it is deleted).
productSchema.index({ tenant_id: 1, site_id: 1, parent_external_id: 1 });
productSchema.index({ tenant_id: 1, site_id: 1, parent_product_id: 1 });
// The indexer's queue; with updated_at, the oldest waiting product is one index read (metrics).
productSchema.index({ needs_index: 1, updated_at: 1 });
// What changed since a reindex began (every tenant): requeued behind it.
productSchema.index({ updated_at: 1 });
// Refused products only (a partial index): counted per refusal and per minute, listed newest first.
productSchema.index(...indexErrorIndex());
// What markIndexed filters on, as equality filters: a product by tenant and id, and a product at
// a version. Unique by construction (_id is); unique also because a server that plans only with
// unique indexes whose keys are exactly the filter's (mongo-java-server) then serves these
// writes from the index instead of scanning the collection once per product.
productSchema.index({ tenant_id: 1, _id: 1 }, { unique: true });
productSchema.index({ tenant_id: 1, _id: 1, version: 1 }, { unique: true });
productSchema.index({ tenant_id: 1, _id: 1, version: 1, index_seq: 1 }, { unique: true });

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

/**
 * The products' models on one connection, and their collections as the MongoDB driver sees them
 * (no mongoose casting, no tenancy guard): the background indexer's reads and writes across tenants.
 */
export interface ProductModels {
  ProductModel: Model<ProductDoc>;
  ProductDeletionModel: Model<ProductDeletionDoc>;
  products: Collection<ProductDoc>;
  deletions: Collection<ProductDeletionDoc>;
}

export function productModels(connection: Connection): ProductModels {
  const ProductModel: Model<ProductDoc> =
    (connection.models.Product as Model<ProductDoc> | undefined) ??
    connection.model<ProductDoc>('Product', productSchema);
  const ProductDeletionModel: Model<ProductDeletionDoc> =
    (connection.models.ProductDeletion as Model<ProductDeletionDoc> | undefined) ??
    connection.model<ProductDeletionDoc>('ProductDeletion', deletionSchema);
  return {
    ProductModel,
    ProductDeletionModel,
    // The models' own collections (the connection keeps one per name), typed by their documents:
    // mongoose types a model's `collection` as holding any document, with ObjectId ids.
    products: connection.collection<ProductDoc>(ProductModel.collection.collectionName),
    deletions: connection.collection<ProductDeletionDoc>(ProductDeletionModel.collection.collectionName),
  };
}
