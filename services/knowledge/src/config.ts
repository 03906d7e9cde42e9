import { Type } from '@sinclair/typebox';
import {
  BACK_SERVICE_AUTH_SETTINGS,
  INDEXING_SERVICE_SETTINGS,
  LogLevel,
  checkServiceAuthSecrets,
  grpcServerSettings,
  loadConfig,
  singleTenantOf,
} from '@kb/common';

export const KnowledgeConfigSchema = Type.Object({
  ...INDEXING_SERVICE_SETTINGS,
  ...grpcServerSettings('knowledge'),
  ...BACK_SERVICE_AUTH_SETTINGS,
  LOG_LEVEL: LogLevel,
});
export type KnowledgeConfig = ReturnType<typeof loadKnowledgeConfig>;

export function loadKnowledgeConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(KnowledgeConfigSchema, env);
  checkServiceAuthSecrets(config);
  singleTenantOf(config);
  return config;
}
