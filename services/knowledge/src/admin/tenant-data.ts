/**
 * The knowledge service's collections as a tenant's export, import and purge see them (the
 * admin CLI's `tenant export|import|purge`). Every collection the service owns is listed: a
 * collection added to data-access/models.ts without a line here is caught by the unit test.
 */
import { CLAIM_FIELD, type TenantCollection } from '@kb/mongo';

/** Stored by this install's indexer about its own index: rebuilt when the imported entry is indexed here. */
const INDEX_STATE = [CLAIM_FIELD, 'index_error'] as const;

export const KNOWLEDGE_TENANT_COLLECTIONS: readonly TenantCollection[] = [
  { name: 'tenants', tenantKey: '_id', exported: true },
  // Settings live on the tenant; hosts too. Tokens are secrets (only their hash is stored, and even that stays).
  { name: 'api_tokens', tenantKey: 'tenant_id', exported: false },
  { name: 'categories', tenantKey: 'tenant_id', exported: true, omit: ['guard'] },
  // The tree's move lock: recreated on the first move.
  { name: 'category_trees', tenantKey: 'tenant_id', exported: false },
  { name: 'deleted_sites', tenantKey: 'tenant_id', exported: true },
  {
    name: 'knowledge_entries',
    tenantKey: 'tenant_id',
    exported: true,
    omit: INDEX_STATE,
    // Queued for this install's indexer, which embeds and indexes it and sets embedding_model.
    onImport: { index_pending: true, indexed_version: 0, index_seq: 0, embedding_model: null },
  },
  { name: 'knowledge_entry_versions', tenantKey: 'tenant_id', exported: true },
  // Deletes still to reach the search index, and the skill index's leases: this install's work in progress.
  { name: 'knowledge_entry_tombstones', tenantKey: 'tenant_id', exported: false },
  { name: 'knowledge_leases', tenantKey: 'tenant_id', exported: false },
];
