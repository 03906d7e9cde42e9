export { startCatalogServer, CATALOG_SERVICE_NAME, type CatalogServer } from './server';
export { loadCatalogConfig, CatalogConfigSchema, type CatalogConfig } from './config';
export * from './admin';
// For the benchmark (tools/bench), which counts and embeds a product's texts as the catalog builds them.
export { embeddingTexts } from './domain/index-document';
export { CATALOG_QUERIES, CATALOG_CROSS_TENANT_INDEXES, catalogCollections } from './data-access/queries';
