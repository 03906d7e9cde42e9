import { Schema, type Connection, type Model, type SchemaDefinition, type SchemaOptions } from 'mongoose';
import {
  indexErrorIndex,
  indexErrorPath,
  parentGuardPath,
  queuePaths,
  tenantScoped,
  type ParentGuardState,
} from '@kb/mongo';
import type { ApiToken, Category, Entry, EntryTombstone, EntryVersion, Tenant } from '../domain/types';

/*
 * The stored documents: the domain's objects (domain/types.ts) with MongoDB's `_id` for `id`,
 * plus what never leaves data-access (a token's hash, a category's guard state).
 */

export type TenantDoc = Omit<Tenant, 'id'> & { _id: string; updated_at: Date };

export type ApiTokenDoc = Omit<ApiToken, 'id'> & {
  _id: string; // the token id, also the visible part of the token
  hash: string; // hex SHA-256 of the whole token; the token itself is never stored
};

export type CategoryDoc = Omit<Category, 'id'> & {
  _id: string;
  /** Deletes and the writes that refer to the category (entries, children) meet here; never answered. */
  guard?: ParentGuardState;
};

export type EntryDoc = Omit<Entry, 'id'> & { _id: string };

/**
 * One per tenant (`_id` the tenant id): where moves of categories take turns, so that no two
 * cycle checks run against the same tree (domain/categories/tree-lock.ts).
 */
export interface CategoryTreeDoc {
  _id: string;
  tenant_id: string;
  /** The move under way: its token and when it began; null when none is. */
  mover: { token: string; at: Date } | null;
  /** Moves begun so far. */
  version: number;
}

/** A site deleted in the catalog (`_id` the site id): never assigned again, swept from entries' site_ids. */
export interface DeletedSiteDoc {
  _id: string;
  tenant_id: string;
  deleted_at: Date;
}

/** `snapshot` is the entry as stored (an EntryDoc, `_id` included). */
export type EntryVersionDoc = Omit<EntryVersion, 'id'> & { _id: string };

export type EntryTombstoneDoc = Omit<EntryTombstone, 'id'> & { _id: string };

/** A field every document has. */
const required = <T>(type: T) => ({ type, required: true as const });
/** A field that is null until set. */
const nullable = <T>(type: T) => ({ type, default: null });

/** When a document was created and last changed (fresh objects: mongoose may keep what it is given). */
const timestamps = () => ({
  created_at: required(Date),
  updated_at: required(Date),
});

/**
 * A collection whose every document belongs to one tenant: string ids, a tenant id, and the
 * tenantScoped guard that refuses a query naming no tenant.
 */
function tenantScopedSchema<T>(fields: SchemaDefinition, options: SchemaOptions): Schema<T> {
  const schema = new Schema({ _id: required(String), tenant_id: required(String), ...fields }, options);
  schema.plugin(tenantScoped);
  return schema as unknown as Schema<T>;
}

const tenantSchema = new Schema<TenantDoc>(
  {
    _id: required(String),
    name: required(String),
    hosts: { type: [String], default: [], index: true },
    settings: { type: Schema.Types.Mixed, default: {} },
    ...timestamps(),
  },
  { collection: 'tenants', versionKey: false, minimize: false, autoIndex: false },
);

const apiTokenSchema = tenantScopedSchema<ApiTokenDoc>(
  {
    hash: { type: String, required: true, unique: true },
    user_id: nullable(String),
    role: required(String),
    scopes: { type: [String], default: [] },
    workspace_ids: { type: [String], default: [] },
    name: nullable(String),
    expires_at: nullable(Date),
    revoked_at: nullable(Date),
    created_at: required(Date),
  },
  { collection: 'api_tokens', versionKey: false, autoIndex: false },
);
apiTokenSchema.index({ tenant_id: 1, hash: 1 });

const categorySchema = tenantScopedSchema<CategoryDoc>(
  {
    name: required(String),
    description: nullable(String),
    parent_id: nullable(String),
    sort_order: { type: Number, default: 0 },
    ...timestamps(),
    ...parentGuardPath,
  },
  { collection: 'categories', versionKey: false, autoIndex: false },
);
// A parent's children in list order (and their count); the whole tree in list order.
categorySchema.index({ tenant_id: 1, parent_id: 1, sort_order: 1, name: 1, _id: 1 });
categorySchema.index({ tenant_id: 1, sort_order: 1, name: 1, _id: 1 });

const categoryTreeSchema = tenantScopedSchema<CategoryTreeDoc>(
  { mover: { type: Schema.Types.Mixed, default: null }, version: { type: Number, default: 0 } },
  { collection: 'category_trees', versionKey: false, autoIndex: false },
);

const deletedSiteSchema = tenantScopedSchema<DeletedSiteDoc>(
  { deleted_at: required(Date) },
  { collection: 'deleted_sites', versionKey: false, autoIndex: false },
);

const entrySchema = tenantScopedSchema<EntryDoc>(
  {
    title: required(String),
    content: required(String),
    category_id: required(String),
    visibility: required(String),
    type: required(String),
    version: required(Number),
    language: required(String),
    translation_group_id: required(String),
    translation_of: nullable(String),
    source: required(String),
    source_reference: nullable(String),
    embedding_model: nullable(String),
    summary: nullable(String),
    layer: nullable(String),
    tags: { type: [String], default: [] },
    workspace_id: nullable(String),
    created_by_user_id: nullable(String),
    owner_key: nullable(String),
    metadata: { type: Schema.Types.Mixed, default: {} },
    search_keywords: { type: [String], default: [] },
    similarity_text: nullable(String),
    project_ids: nullable([String]),
    site_ids: { type: [String], default: [] },
    expires_at: nullable(Date),
    content_changed_at: required(Date),
    indexed_version: { type: Number, default: 0 },
    index_pending: { type: Boolean, default: true },
    index_error: indexErrorPath(),
    ...queuePaths(),
    ...timestamps(),
  },
  { collection: 'knowledge_entries', versionKey: false, minimize: false, autoIndex: false },
);
// Lists in their order (newest change first, then id): all of a tenant's, and a category's (also its count).
entrySchema.index({ tenant_id: 1, updated_at: -1, _id: 1 });
entrySchema.index({ tenant_id: 1, category_id: 1, updated_at: -1, _id: 1 });
// A type's entries oldest first (the skills a skill index is rebuilt from).
entrySchema.index({ tenant_id: 1, type: 1, created_at: 1, _id: 1 });
// The entries a deleted site is taken off.
entrySchema.index({ tenant_id: 1, site_ids: 1 });
// One entry per language in a translation group (also the guard against racing translations).
entrySchema.index({ tenant_id: 1, translation_group_id: 1, language: 1 }, { unique: true });
// The indexer's queue; with updated_at, the oldest waiting entry is one index read (metrics).
entrySchema.index({ index_pending: 1, updated_at: 1 });
// What changed since a reindex began (every tenant): requeued behind it.
entrySchema.index({ updated_at: 1 });
// Refused entries only (a partial index): counted per refusal and per minute, listed newest first.
entrySchema.index(...indexErrorIndex());

const entryVersionSchema = tenantScopedSchema<EntryVersionDoc>(
  {
    entry_id: required(String),
    version: required(Number),
    action: required(String),
    changed_at: required(Date),
    changed_by_user_id: nullable(String),
    audit_source: required(String),
    client_id: nullable(String),
    request_id: nullable(String),
    snapshot: required(Schema.Types.Mixed),
  },
  { collection: 'knowledge_entry_versions', versionKey: false, minimize: false, autoIndex: false },
);
entryVersionSchema.index({ tenant_id: 1, entry_id: 1, version: 1 }, { unique: true });

const entryTombstoneSchema = tenantScopedSchema<EntryTombstoneDoc>(
  {
    version: required(Number),
    deleted_at: required(Date),
  },
  { collection: 'knowledge_entry_tombstones', versionKey: false, autoIndex: false },
);
entryTombstoneSchema.index({ deleted_at: 1 });

export interface KnowledgeModels {
  Tenant: Model<TenantDoc>;
  ApiToken: Model<ApiTokenDoc>;
  Category: Model<CategoryDoc>;
  CategoryTree: Model<CategoryTreeDoc>;
  DeletedSite: Model<DeletedSiteDoc>;
  Entry: Model<EntryDoc>;
  EntryVersion: Model<EntryVersionDoc>;
  EntryTombstone: Model<EntryTombstoneDoc>;
}

/** Registers the knowledge service's collections on a connection (each service owns its own). */
export function knowledgeModels(connection: Connection): KnowledgeModels {
  return {
    Tenant: connection.models.Tenant ?? connection.model<TenantDoc>('Tenant', tenantSchema),
    ApiToken: connection.models.ApiToken ?? connection.model<ApiTokenDoc>('ApiToken', apiTokenSchema),
    Category: connection.models.Category ?? connection.model<CategoryDoc>('Category', categorySchema),
    CategoryTree:
      connection.models.CategoryTree ?? connection.model<CategoryTreeDoc>('CategoryTree', categoryTreeSchema),
    DeletedSite: connection.models.DeletedSite ?? connection.model<DeletedSiteDoc>('DeletedSite', deletedSiteSchema),
    Entry: connection.models.Entry ?? connection.model<EntryDoc>('Entry', entrySchema),
    EntryVersion:
      connection.models.EntryVersion ?? connection.model<EntryVersionDoc>('EntryVersion', entryVersionSchema),
    EntryTombstone:
      connection.models.EntryTombstone ?? connection.model<EntryTombstoneDoc>('EntryTombstone', entryTombstoneSchema),
  };
}

/**
 * Creates the collections' indexes, once, before the first write. Indexes are never built
 * in the background behind a write (autoIndex is off): the MongoDB-compatible test server
 * fails writes that race an index build on the same collection.
 */
export async function ensureKnowledgeIndexes(models: KnowledgeModels): Promise<void> {
  for (const model of Object.values(models)) await model.createIndexes();
}
