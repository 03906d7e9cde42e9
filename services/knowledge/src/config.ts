import { Type } from '@sinclair/typebox';
import { LogLevel, loadConfig } from '@kb/common';

export const KnowledgeConfigSchema = Type.Object({
  MONGODB_URI: Type.String({ pattern: '^mongodb(\\+srv)?://', description: 'MongoDB connection string' }),
  GRPC_HOST: Type.String({ default: '127.0.0.1', minLength: 1 }),
  KNOWLEDGE_GRPC_PORT: Type.Integer({ default: 50051, minimum: 0, maximum: 65535 }),
  LOG_LEVEL: LogLevel,
});
export type KnowledgeConfig = ReturnType<typeof loadKnowledgeConfig>;

export function loadKnowledgeConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(KnowledgeConfigSchema, env);
}
