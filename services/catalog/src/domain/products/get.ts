import { AppError, isUuid, requireScope, type Caller } from '@kb/common';
import type { ProductDoc } from '../../data-access/products-repo';
import type { CatalogDeps } from './deps';

/** A product of the caller's tenant (knowledge:read); an id that is not a uuid is not found. */
export async function getProduct(
  deps: Pick<CatalogDeps, 'products'>,
  caller: Caller,
  productId: string,
): Promise<ProductDoc> {
  requireScope(caller, 'knowledge:read');
  const doc = isUuid(productId) ? await deps.products.findById(caller.tenant_id, productId) : null;
  if (!doc) throw AppError.notFound('Product not found');
  return doc;
}
