import { Type } from '@sinclair/typebox';
import { INDEXING_SERVICE_SETTINGS, LogLevel, grpcServerSettings, loadConfig } from '@kb/common';

export const KnowledgeConfigSchema = Type.Object({
  ...INDEXING_SERVICE_SETTINGS,
  ...grpcServerSettings('knowledge'),
  LOG_LEVEL: LogLevel,
});
export type KnowledgeConfig = ReturnType<typeof loadKnowledgeConfig>;

export function loadKnowledgeConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(KnowledgeConfigSchema, env);
}
