import { Type, type Static } from '@sinclair/typebox';
import { GrpcAddress, LogLevel, loadConfig } from '@kb/common';

export const CatalogConfigSchema = Type.Object({
  MONGODB_URI: Type.String({ pattern: '^mongodb(\\+srv)?://' }),
  GRPC_HOST: Type.String({ default: '127.0.0.1', minLength: 1 }),
  CATALOG_GRPC_PORT: Type.Integer({ default: 50052, minimum: 0, maximum: 65535 }),
  /** The similarity service (indexing and search); every call has this deadline, or less: what is left of the call it serves. */
  SIMILARITY_GRPC_ADDR: GrpcAddress('127.0.0.1:50053'),
  SIMILARITY_DEADLINE_MS: Type.Integer({ default: 10000, minimum: 100 }),
  /** How long a product write waits for its indexing before it answers anyway (then the indexer catches up). */
  INDEX_ON_WRITE_MS: Type.Integer({ default: 3000, minimum: 100 }),
  /** How often the background indexer looks for products not indexed in their latest version. */
  INDEXER_INTERVAL_MS: Type.Integer({ default: 2000, minimum: 50 }),
  LOG_LEVEL: LogLevel,
});
export type CatalogConfig = Static<typeof CatalogConfigSchema>;

export function loadCatalogConfig(env: NodeJS.ProcessEnv = process.env): CatalogConfig {
  return loadConfig(CatalogConfigSchema, env);
}
