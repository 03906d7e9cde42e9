import { Type, type Static } from '@sinclair/typebox';
import { INDEXING_SERVICE_SETTINGS, LogLevel, grpcServerSettings, loadConfig } from '@kb/common';

export const CatalogConfigSchema = Type.Object({
  ...INDEXING_SERVICE_SETTINGS,
  ...grpcServerSettings('catalog'),
  LOG_LEVEL: LogLevel,
});
export type CatalogConfig = Static<typeof CatalogConfigSchema>;

export function loadCatalogConfig(env: NodeJS.ProcessEnv = process.env): CatalogConfig {
  return loadConfig(CatalogConfigSchema, env);
}
