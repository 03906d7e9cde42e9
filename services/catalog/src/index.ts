export { startCatalogServer, CATALOG_SERVICE_NAME, type CatalogServer } from './server';
export { loadCatalogConfig, CatalogConfigSchema, type CatalogConfig } from './config';
export * from './admin';
