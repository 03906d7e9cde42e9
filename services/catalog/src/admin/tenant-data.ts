/**
 * The catalog's collections as a tenant's export, import and purge see them (the admin CLI's
 * `tenant export|import|purge`); every collection the catalog owns is listed.
 */
import { CLAIM_FIELD, type TenantCollection } from '@kb/mongo';

export const CATALOG_TENANT_COLLECTIONS: readonly TenantCollection[] = [
  { name: 'sites', tenantKey: 'tenant_id', exported: true, omit: ['guard'] },
  { name: 'default_sites', tenantKey: 'tenant_id', exported: true },
  {
    name: 'products',
    tenantKey: 'tenant_id',
    exported: true,
    omit: [CLAIM_FIELD, 'index_error'],
    // Queued for this install's background indexer (vectors come from the embedding cache when it has them).
    onImport: { needs_index: true, indexed_version: 0, index_seq: 0 },
  },
  // Deletes still to reach the search index: this install's work in progress.
  { name: 'product_deletions', tenantKey: 'tenant_id', exported: false },
];
