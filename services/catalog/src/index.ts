export { startCatalogServer, CATALOG_SERVICE_NAME, type CatalogServer } from './server';
export { loadCatalogConfig, CatalogConfigSchema, type CatalogConfig } from './config';
export {
  runCatalogAdmin,
  main as catalogAdminMain,
  CatalogUsageError,
  CATALOG_USAGE,
  type CatalogAdminOptions,
} from './admin/cli';
