import { AppError, requireScope, type Caller } from '@kb/platform';
import type { CatalogDeps } from './deps';
import { productIndexer } from './indexing';

/**
 * Deletes a product (knowledge:write) and, unless writes do not wait for the index (after a
 * failure), removes it from the search index at once; otherwise its tombstone waits for the
 * background indexer.
 */
export async function deleteProduct(deps: CatalogDeps, caller: Caller, id: string): Promise<void> {
  requireScope(caller, 'knowledge:write');
  const tenantId = caller.tenant_id;
  const doc = await deps.products.remove(tenantId, id, new Date());
  if (!doc) throw AppError.notFound('Product not found');
  // The tombstone's version: the product's + 1.
  await productIndexer(deps).removeNow([{ id, tenant_id: tenantId, version: doc.version + 1 }]);
}
