import { Type } from '@sinclair/typebox';
import {
  BACK_SERVICE_AUTH_SETTINGS,
  INDEXING_SERVICE_SETTINGS,
  LogLevel,
  checkServiceAuthSecrets,
  grpcServerSettings,
  loadConfig,
  singleTenantOf,
} from '@kb/platform';
import { TENANT_SETTINGS_BOUND_MS } from './data-access/cached-tenants';

export const KnowledgeConfigSchema = Type.Object({
  ...INDEXING_SERVICE_SETTINGS,
  ...grpcServerSettings('knowledge'),
  ...BACK_SERVICE_AUTH_SETTINGS,
  /**
   * How long entry reads and writes keep a tenant's settings: the longest a settings change
   * (visibility ceilings, writable types, workspaces) takes to apply. At most the documented 5 s; 0 reads every time.
   */
  TENANT_SETTINGS_CACHE_TTL_MS: Type.Integer({
    default: TENANT_SETTINGS_BOUND_MS,
    minimum: 0,
    maximum: TENANT_SETTINGS_BOUND_MS,
  }),
  LOG_LEVEL: LogLevel,
});
export type KnowledgeConfig = ReturnType<typeof loadKnowledgeConfig>;

export function loadKnowledgeConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(KnowledgeConfigSchema, env);
  checkServiceAuthSecrets(config);
  singleTenantOf(config);
  return config;
}
