// The product use cases, one file each. indexNow, bulkUpsert and CatalogDeps keep these names:
// the indexer and the admin CLI import them from here.
export { requireSite, type CatalogDeps } from './deps';
export { indexNow, productIndexer, type IndexOutcome } from './indexing';
export { type EmbeddingsStatus, type UpsertStatus } from './write';
export { upsertProduct } from './upsert';
export { bulkUpsert, bulkUpsertProducts, type BulkItem } from './bulk-upsert';
export { getProduct } from './get';
export { deleteProduct } from './delete';
