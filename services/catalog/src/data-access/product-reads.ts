import { findOfTenantByIds } from '@kb/mongo';
import type { Product } from '../domain/types';
import { productOf, productsOf, type ProductDoc, type ProductModels } from './product-models';

// By id through findOfTenantByIds: answered from the _id index on the local server too.
export async function findById({ products }: ProductModels, tenantId: string, id: string): Promise<Product | null> {
  return productsOf(await findOfTenantByIds<ProductDoc>(products, tenantId, [id]))[0] ?? null;
}

export async function findByIds({ products }: ProductModels, tenantId: string, ids: string[]): Promise<Product[]> {
  return productsOf(await findOfTenantByIds<ProductDoc>(products, tenantId, ids));
}

/** Which of `ids` are the tenant's products (ids only). */
export async function existingIds({ products }: ProductModels, tenantId: string, ids: string[]): Promise<string[]> {
  return (await findOfTenantByIds<ProductDoc>(products, tenantId, ids, { _id: 1 })).map((d) => d._id);
}

export async function findByKey(
  { ProductModel }: ProductModels,
  tenantId: string,
  siteId: string,
  key: string,
): Promise<Product | null> {
  const doc = await ProductModel.findOne({
    tenant_id: tenantId,
    site_id: siteId,
    upsert_key: key,
  }).lean<ProductDoc>();
  return doc ? productOf(doc) : null;
}

/** Products of a site by upsert key (external_id, or the id when there is none), in one query. */
export async function findByKeys(
  { ProductModel }: ProductModels,
  tenantId: string,
  siteId: string,
  keys: string[],
): Promise<Product[]> {
  return keys.length
    ? productsOf(
        await ProductModel.find({ tenant_id: tenantId, site_id: siteId, upsert_key: { $in: keys } }).lean<
          ProductDoc[]
        >(),
      )
    : [];
}

export function countInSite({ ProductModel }: ProductModels, tenantId: string, siteId: string) {
  return ProductModel.countDocuments({ tenant_id: tenantId, site_id: siteId });
}
