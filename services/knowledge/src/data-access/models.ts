import { Schema, type Connection, type Model, type SchemaDefinition, type SchemaOptions } from 'mongoose';
import {
  indexErrorPath,
  parentGuardPath,
  tenantScoped,
  type IndexErrorRecord,
  type ParentGuardState,
} from '@kb/common';

export interface TenantDoc {
  _id: string;
  name: string;
  hosts: string[];
  settings: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export interface ApiTokenDoc {
  _id: string; // the token id, also the visible part of the token
  tenant_id: string;
  hash: string; // hex SHA-256 of the whole token; the token itself is never stored
  user_id: string | null;
  role: string;
  scopes: string[];
  workspace_ids: string[];
  name: string | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

export interface CategoryDoc {
  _id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  parent_id: string | null;
  sort_order: number;
  created_at: Date;
  updated_at: Date;
  /** Deletes and the writes that refer to the category (entries, children) meet here; never answered. */
  guard?: ParentGuardState;
}

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
categorySchema.index({ tenant_id: 1, parent_id: 1, sort_order: 1, name: 1 });

/** A knowledge entry. `owner_key` decides personal visibility (the user id, else the token). */
export interface EntryDoc {
  _id: string;
  tenant_id: string;
  title: string;
  content: string;
  category_id: string;
  visibility: string;
  type: string;
  version: number;
  language: string;
  translation_group_id: string;
  translation_of: string | null;
  source: string;
  source_reference: string | null;
  embedding_model: string | null;
  summary: string | null;
  layer: string | null;
  tags: string[];
  workspace_id: string | null;
  created_by_user_id: string | null;
  owner_key: string | null;
  metadata: Record<string, unknown>;
  search_keywords: string[];
  similarity_text: string | null;
  project_ids: string[] | null;
  site_ids: string[];
  expires_at: Date | null;
  /** When title, summary or content last changed (decides whether translations are outdated). */
  content_changed_at: Date;
  /** The version last written to the search index; below `version` means "index pending". */
  indexed_version: number;
  index_pending: boolean;
  /**
   * Set when the search index refused a version (index_pending is then false: not retried until
   * a new version or `admin index retry`); removed when a later version is indexed.
   */
  index_error?: IndexErrorRecord;
  created_at: Date;
  updated_at: Date;
}

/** One state of an entry as written by one change, with who made it. */
export interface EntryVersionDoc {
  _id: string;
  tenant_id: string;
  entry_id: string;
  version: number;
  action: string;
  changed_at: Date;
  changed_by_user_id: string | null;
  audit_source: string;
  client_id: string | null;
  request_id: string | null;
  snapshot: Record<string, unknown>;
}

/** A deleted entry still to be removed from the search index. */
export interface EntryTombstoneDoc {
  _id: string;
  tenant_id: string;
  version: number;
  deleted_at: Date;
}

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
    ...timestamps(),
  },
  { collection: 'knowledge_entries', versionKey: false, minimize: false, autoIndex: false },
);
entrySchema.index({ tenant_id: 1, updated_at: -1, _id: 1 });
entrySchema.index({ tenant_id: 1, category_id: 1 });
entrySchema.index({ tenant_id: 1, type: 1 });
// One entry per language in a translation group (also the guard against racing translations).
entrySchema.index({ tenant_id: 1, translation_group_id: 1, language: 1 }, { unique: true });
// The indexer's queue; with updated_at, the oldest waiting entry is one index read (metrics).
entrySchema.index({ index_pending: 1, updated_at: 1 });

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
