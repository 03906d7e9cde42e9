import { Type, type Static } from '@sinclair/typebox';
import { embeddingUrlProblem } from './embedder/openai-embedder';
import {
  BACK_SERVICE_AUTH_SETTINGS,
  ConfigError,
  LogLevel,
  SYSTEM_AUTH_SETTINGS,
  checkServiceAuthSecrets,
  grpcServerSettings,
  loadConfig,
  singleTenantOf,
} from '@kb/platform';
import {
  DEFAULT_INDEX_LAYOUT,
  ELASTICSEARCH_URL_EXPECTED,
  ELASTICSEARCH_URL_PATTERN,
  REPLICAS_EXPECTED,
  REPLICAS_PATTERN,
  replicasProblem,
  type IndexLayout,
  VECTOR_INDEX_TYPES,
} from '@kb/search';

export const SimilarityConfigSchema = Type.Object({
  /** One node's URL, or the nodes of one cluster separated by commas (the client fails over between them). */
  ELASTICSEARCH_URL: Type.String({ pattern: ELASTICSEARCH_URL_PATTERN, expected: ELASTICSEARCH_URL_EXPECTED }),
  /** Prefix of every index and alias name (several installs or test runs can share a cluster). */
  ELASTICSEARCH_INDEX_PREFIX: Type.String({ default: 'kb', pattern: '^[a-z0-9][a-z0-9_-]*$' }),
  /** Primary shards of each new index (at creation and at every reindex; an existing index keeps its own). */
  ELASTICSEARCH_SHARDS: Type.Integer({ default: DEFAULT_INDEX_LAYOUT.shards, minimum: 1, maximum: 1024 }),
  /**
   * Replicas of each index: a count, or an auto-expand range (default `0-1`: none on a single
   * data node, one as soon as there is a second). Applied at creation, at reindex, and to the
   * existing indices at start (a dynamic setting).
   */
  ELASTICSEARCH_REPLICAS: Type.String({
    default: DEFAULT_INDEX_LAYOUT.replicas,
    pattern: REPLICAS_PATTERN,
    expected: REPLICAS_EXPECTED,
  }),
  /**
   * How the vectors of each new products or entries index are indexed (at creation and at every
   * reindex; an existing index keeps its own until reindexed): `hnsw` (float, the default) or
   * `int8_hnsw` (quantized, its candidates rescored with the float vectors; 3.7× less memory).
   */
  ELASTICSEARCH_VECTOR_INDEX: Type.Union(
    VECTOR_INDEX_TYPES.map((t) => Type.Literal(t)),
    { default: 'hnsw' },
  ),
  ...grpcServerSettings('similarity'),
  ...BACK_SERVICE_AUTH_SETTINGS,
  /** Verifies the system credential; without it, calls without a tenant (reindex) are refused. */
  ...SYSTEM_AUTH_SETTINGS,
  /** local: the ONNX model in EMBEDDING_MODEL_DIR; openai: an OpenAI-compatible /v1/embeddings endpoint. */
  EMBEDDING_PROVIDER: Type.Union([Type.Literal('local'), Type.Literal('openai')], { default: 'local' }),
  EMBEDDING_MODEL_DIR: Type.Optional(Type.String({ minLength: 1 })),
  EMBEDDING_MODEL_NAME: Type.String({ default: 'all-MiniLM-L6-v2-q', pattern: '^[A-Za-z0-9][A-Za-z0-9._:/-]*$' }),
  EMBEDDING_DIMS: Type.Integer({ default: 384, minimum: 1, maximum: 4096 }),
  /**
   * Local model: sessions embedding in parallel (a worker thread each; default min(2, cores)) and
   * intra-op threads per session (default 1). See docs/performance.md.
   */
  EMBEDDING_SESSIONS: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
  EMBEDDING_THREADS: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
  EMBEDDING_API_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  EMBEDDING_API_KEY: Type.Optional(Type.String()),
  /**
   * The languages the embedding model understands (ISO 639-1, comma-separated): entry search
   * trusts vectors most for these and words most for the others. The local model is English only;
   * a multilingual model through EMBEDDING_PROVIDER=openai would be e.g. `en,de,fr`.
   */
  EMBEDDING_LANGUAGES: Type.String({ default: 'en', pattern: '^[a-z]{2}(,[a-z]{2})*$' }),
  LOG_LEVEL: LogLevel,
});
export type SimilarityConfig = Static<typeof SimilarityConfigSchema>;

export function loadSimilarityConfig(env: NodeJS.ProcessEnv = process.env): SimilarityConfig {
  const config = loadConfig(SimilarityConfigSchema, env);
  checkServiceAuthSecrets(config);
  singleTenantOf(config);
  if (config.EMBEDDING_PROVIDER === 'local' && !config.EMBEDDING_MODEL_DIR) {
    throw new ConfigError([
      'EMBEDDING_MODEL_DIR: required when EMBEDDING_PROVIDER=local (a ' +
        'directory with model.onnx and tokenizer.json; `npm start` fills it in)',
    ]);
  }
  if (config.EMBEDDING_PROVIDER === 'openai' && !config.EMBEDDING_API_URL) {
    throw new ConfigError(['EMBEDDING_API_URL: required when EMBEDDING_PROVIDER=openai (not set)']);
  }
  const replicas = replicasProblem(config.ELASTICSEARCH_REPLICAS);
  if (replicas) throw new ConfigError([`ELASTICSEARCH_REPLICAS ${replicas} (value not shown)`]);
  const urlProblem = config.EMBEDDING_API_URL ? embeddingUrlProblem(config.EMBEDDING_API_URL) : undefined;
  if (config.EMBEDDING_PROVIDER === 'openai' && urlProblem) throw new ConfigError([urlProblem]);
  return config;
}

/** The shards and replicas of the indices the service creates. */
export const indexLayoutOf = (config: SimilarityConfig): IndexLayout => ({
  shards: config.ELASTICSEARCH_SHARDS,
  replicas: config.ELASTICSEARCH_REPLICAS,
  vectors: config.ELASTICSEARCH_VECTOR_INDEX,
});
