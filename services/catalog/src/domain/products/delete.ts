import { AppError, requireScope, systemCaller, type Caller } from '@kb/common';
import { indexingFailed, inlinePaused, type CatalogDeps } from './deps';

/**
 * Deletes a product (knowledge:write) and, unless inline indexing is paused, removes it from the
 * search index at once; otherwise its tombstone waits for the background indexer.
 */
export async function deleteProduct(deps: CatalogDeps, caller: Caller, id: string): Promise<void> {
  requireScope(caller, 'knowledge:write');
  const tenantId = caller.tenant_id;
  const doc = await deps.products.remove(tenantId, id, new Date());
  if (!doc) throw AppError.notFound('Product not found');
  if (!deps.similarity || inlinePaused(deps)) return;
  try {
    await deps.similarity.call(
      'DeleteProducts',
      { caller: systemCaller('catalog', tenantId), documents: [{ id, version: String(doc.version + 1) }] },
      { deadlineMs: deps.indexOnWriteMs },
    );
    await deps.products.deletionDone(tenantId, id, doc.version + 1);
  } catch (err) {
    indexingFailed(deps, true);
    deps.logger.warn(
      { err: (err as Error).message, product_id: id },
      'index delete deferred to the background indexer',
    );
  }
}
