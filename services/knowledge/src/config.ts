import { Type } from '@sinclair/typebox';
import { GrpcAddress, LogLevel, loadConfig } from '@kb/common';

export const KnowledgeConfigSchema = Type.Object({
  MONGODB_URI: Type.String({ pattern: '^mongodb(\\+srv)?://', description: 'MongoDB connection string' }),
  GRPC_HOST: Type.String({ default: '127.0.0.1', minLength: 1 }),
  KNOWLEDGE_GRPC_PORT: Type.Integer({ default: 50051, minimum: 0, maximum: 65535 }),
  /** The similarity service (indexing and search); every call has this deadline, or less: what is left of the call it serves. */
  SIMILARITY_GRPC_ADDR: GrpcAddress('127.0.0.1:50053'),
  SIMILARITY_DEADLINE_MS: Type.Integer({ default: 10000, minimum: 100 }),
  /** How often the background indexer catches up on entries not yet in the search index. */
  INDEXER_INTERVAL_MS: Type.Integer({ default: 2000, minimum: 50 }),
  /** How long a write waits for its own indexing before answering (it never fails the write). */
  INDEX_ON_WRITE_MS: Type.Integer({ default: 3000, minimum: 50 }),
  LOG_LEVEL: LogLevel,
});
export type KnowledgeConfig = ReturnType<typeof loadKnowledgeConfig>;

export function loadKnowledgeConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(KnowledgeConfigSchema, env);
}
