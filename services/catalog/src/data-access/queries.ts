import type { Connection } from 'mongoose';
import { declaredCollections, reindexRunQueries, type DeclaredCollection, type QueryShape } from '@kb/mongo';
import { productModels } from './product-models';
import { PRODUCT_QUERIES } from './products-repo';
import { SITE_QUERIES, siteModels } from './sites-repo';

/** Every query the catalog's repositories issue (docs/mongodb.md lists them with their indexes). */
export const CATALOG_QUERIES: QueryShape[] = [
  ...PRODUCT_QUERIES,
  ...SITE_QUERIES,
  reindexRunQueries('product_reindex_runs'), // admin/products.ts REINDEX_RUNS
];

/** Indexes of tenant-scoped collections that do not lead with tenant_id: the background indexer's and the admin CLI's, across tenants. */
export const CATALOG_CROSS_TENANT_INDEXES = [
  'products.needs_index_1_updated_at_1',
  'products.updated_at_1',
  'products.index_error.at_-1',
  'product_deletions.deleted_at_1',
];

/** The catalog's collections and their declared indexes (models registered on `connection`; nothing is opened). */
export function catalogCollections(connection: Connection): DeclaredCollection[] {
  const { ProductModel, ProductDeletionModel } = productModels(connection);
  const { SiteModel, DefaultSite } = siteModels(connection);
  return declaredCollections([ProductModel, ProductDeletionModel, SiteModel, DefaultSite]);
}
