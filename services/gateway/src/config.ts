import { Type, type Static } from '@sinclair/typebox';
import {
  ConfigError,
  DEFAULT_GATEWAY_PORT,
  GRPC_CLIENT_SETTINGS,
  GrpcAddress,
  LogLevel,
  Port,
  SERVICE_AUTH_SETTINGS,
  checkServiceAuthSecrets,
  defaultGrpcAddress,
  loadConfig,
} from '@kb/platform';
import { ELASTICSEARCH_URL_EXPECTED, ELASTICSEARCH_URL_PATTERN } from '@kb/search';
import { TOKEN_REVOCATION_BOUND_MS } from './http/identity-cache';
import { HIT_CACHE_CHARS_DEFAULT } from './read-path/hit-sources';
import { SIMILAR_CACHE_HITS_DEFAULT } from './read-path/answer-cache';

export const GatewayConfigSchema = Type.Object({
  PORT: Port(DEFAULT_GATEWAY_PORT),
  HOST: Type.String({ default: '127.0.0.1', minLength: 1 }),
  TENANT_MODE: Type.Union([Type.Literal('single'), Type.Literal('host')], { default: 'host' }),
  /** The one tenant of a per-tenant install (TENANT_MODE=single). */
  TENANT_ID: Type.Optional(Type.String({ pattern: '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$' })),
  /** TENANT_MODE=host: the tenant served at the default hosts (for local use: localhost). */
  DEFAULT_TENANT: Type.Optional(Type.String({ pattern: '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$' })),
  DEFAULT_HOSTS: Type.String({ default: 'localhost,127.0.0.1,::1' }),
  /**
   * Behind an ingress: take the host from X-Forwarded-Host and the client address (the key of
   * the failed-authentication limit) from X-Forwarded-For. Off, both headers are ignored: any client
   * could send them.
   */
  TRUST_PROXY: Type.Boolean({ default: false }),
  /**
   * How many proxies append to X-Forwarded-For in front of the gateway: the client address is
   * the entry that many places from the right, so one a client wrote itself on the left is never taken.
   */
  TRUST_PROXY_HOPS: Type.Integer({ default: 1, minimum: 1, maximum: 10 }),
  KNOWLEDGE_GRPC_ADDR: GrpcAddress(defaultGrpcAddress('knowledge')),
  CATALOG_GRPC_ADDR: GrpcAddress(defaultGrpcAddress('catalog')),
  SIMILARITY_GRPC_ADDR: GrpcAddress(defaultGrpcAddress('similarity')),
  /** Keepalive of the clients of the back services (grpc/balancing.ts in @kb/platform). */
  ...GRPC_CLIENT_SETTINGS,
  /**
   * The read path: with it, similar searches are answered here straight from Elasticsearch (the
   * indices the similarity service writes); without it, through the catalog and similarity services.
   * One node's URL, or the nodes of one cluster separated by commas (the client fails over between them).
   */
  ELASTICSEARCH_URL: Type.Optional(
    Type.String({ pattern: ELASTICSEARCH_URL_PATTERN, expected: ELASTICSEARCH_URL_EXPECTED }),
  ),
  /**
   * The similarity service's ELASTICSEARCH_INDEX_PREFIX (the chart gives both the same): the read
   * path's health is that of the install's own indices, not of the whole cluster.
   */
  ELASTICSEARCH_INDEX_PREFIX: Type.String({ default: 'kb', pattern: '^[a-z0-9][a-z0-9_-]*$' }),
  /**
   * The read path keeps hits' `_source` fields by version, up to this many characters of JSON
   * (0.65-1 KB a product): while most hits of a search are kept, Elasticsearch is asked for ids,
   * scores and versions only. 0: every search reads `_source`.
   */
  HIT_CACHE_CHARS: Type.Integer({ default: HIT_CACHE_CHARS_DEFAULT, minimum: 0, maximum: 1_000_000_000 }),
  /**
   * Similar-search answers kept, counted in hits: the same question is answered again while the
   * products index has been neither written nor refreshed since (docs/architecture.md). 0: none.
   */
  SIMILAR_CACHE_HITS: Type.Integer({ default: SIMILAR_CACHE_HITS_DEFAULT, minimum: 0, maximum: 10_000_000 }),
  /** Deadline of every gRPC call the gateway makes. */
  GRPC_DEADLINE_MS: Type.Integer({ default: 10000, minimum: 100 }),
  /** Largest accepted JSON body, in bytes. */
  BODY_LIMIT_BYTES: Type.Integer({ default: 1048576, minimum: 1024 }),
  /**
   * Requests per minute per authenticated caller (API token, or JWT subject) in its tenant,
   * unless the tenant sets `rate_limit.requests_per_minute`; 0 switches the default off.
   */
  RATE_LIMIT_PER_MINUTE: Type.Integer({ default: 6000, minimum: 0 }),
  /** Failed authentications (401s) per minute per client address before it gets 429 for the rest of the minute; 0: off. */
  AUTH_FAILURES_PER_MINUTE: Type.Integer({ default: 100, minimum: 0 }),
  /** Keys each limiter keeps (callers; client addresses); past it the least recently used is forgotten. */
  RATE_LIMIT_MAX_KEYS: Type.Integer({ default: 100000, minimum: 100, maximum: 10000000 }),
  /**
   * How long an API token's identity is kept without asking the knowledge service again: the
   * longest a revoked token is still accepted (docs/threat-model.md). At most the documented
   * 5 s; 0 checks every request.
   */
  TOKEN_CACHE_TTL_MS: Type.Integer({
    default: TOKEN_REVOCATION_BOUND_MS,
    minimum: 0,
    maximum: TOKEN_REVOCATION_BOUND_MS,
  }),
  /** What its caller assertions to the back services are signed with. */
  ...SERVICE_AUTH_SETTINGS,
  LOG_LEVEL: LogLevel,
});
export type GatewayConfig = Static<typeof GatewayConfigSchema>;

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const config = loadConfig(GatewayConfigSchema, env);
  checkServiceAuthSecrets(config);
  if (config.TENANT_MODE === 'single' && !config.TENANT_ID) {
    throw new ConfigError(['TENANT_ID: required when TENANT_MODE=single (not set)']);
  }
  return config;
}
