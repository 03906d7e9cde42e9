import { Schema, type Connection, type Model } from 'mongoose';
import { tenantScoped } from '@kb/common';

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
}

const tenantSchema = new Schema<TenantDoc>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    hosts: { type: [String], default: [], index: true },
    settings: { type: Schema.Types.Mixed, default: {} },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'tenants', versionKey: false, minimize: false, autoIndex: false },
);

const apiTokenSchema = new Schema<ApiTokenDoc>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    hash: { type: String, required: true, unique: true },
    user_id: { type: String, default: null },
    role: { type: String, required: true },
    scopes: { type: [String], default: [] },
    workspace_ids: { type: [String], default: [] },
    name: { type: String, default: null },
    expires_at: { type: Date, default: null },
    revoked_at: { type: Date, default: null },
    created_at: { type: Date, required: true },
  },
  { collection: 'api_tokens', versionKey: false, autoIndex: false },
);
apiTokenSchema.plugin(tenantScoped);
apiTokenSchema.index({ tenant_id: 1, hash: 1 });

const categorySchema = new Schema<CategoryDoc>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    name: { type: String, required: true },
    description: { type: String, default: null },
    parent_id: { type: String, default: null },
    sort_order: { type: Number, default: 0 },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'categories', versionKey: false, autoIndex: false },
);
categorySchema.plugin(tenantScoped);
categorySchema.index({ tenant_id: 1, parent_id: 1, sort_order: 1, name: 1 });

export interface KnowledgeModels {
  Tenant: Model<TenantDoc>;
  ApiToken: Model<ApiTokenDoc>;
  Category: Model<CategoryDoc>;
}

/** Registers the knowledge service's collections on a connection (each service owns its own). */
export function knowledgeModels(connection: Connection): KnowledgeModels {
  return {
    Tenant: connection.models.Tenant ?? connection.model<TenantDoc>('Tenant', tenantSchema),
    ApiToken: connection.models.ApiToken ?? connection.model<ApiTokenDoc>('ApiToken', apiTokenSchema),
    Category: connection.models.Category ?? connection.model<CategoryDoc>('Category', categorySchema),
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
