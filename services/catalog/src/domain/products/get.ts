import { AppError, requireScope, type Caller } from '@kb/platform';
import { isUuid } from '@kb/rules';
import type { CatalogDeps } from './deps';
import type { Product } from '../types';

/** A product of the caller's tenant (knowledge:read); an id that is not a uuid is not found. */
export async function getProduct(
  deps: Pick<CatalogDeps, 'products'>,
  caller: Caller,
  productId: string,
): Promise<Product> {
  requireScope(caller, 'knowledge:read');
  const doc = isUuid(productId) ? await deps.products.findById(caller.tenant_id, productId) : null;
  if (!doc) throw AppError.notFound('Product not found');
  return doc;
}
