import { Type, type Static } from '@sinclair/typebox';
import {
  BACK_SERVICE_AUTH_SETTINGS,
  INDEXING_SERVICE_SETTINGS,
  LogLevel,
  checkServiceAuthSecrets,
  grpcServerSettings,
  loadConfig,
  singleTenantOf,
} from '@kb/platform';

export const CatalogConfigSchema = Type.Object({
  ...INDEXING_SERVICE_SETTINGS,
  ...grpcServerSettings('catalog'),
  ...BACK_SERVICE_AUTH_SETTINGS,
  LOG_LEVEL: LogLevel,
});
export type CatalogConfig = Static<typeof CatalogConfigSchema>;

export function loadCatalogConfig(env: NodeJS.ProcessEnv = process.env): CatalogConfig {
  const config = loadConfig(CatalogConfigSchema, env);
  checkServiceAuthSecrets(config);
  singleTenantOf(config);
  return config;
}
