import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import {
  DEFAULT_KEEPALIVE_TIME_MS,
  DEFAULT_KEEPALIVE_TIMEOUT_MS,
  GRPC_ADDRESS_EXPECTED,
  GRPC_ADDRESS_PATTERN,
  type BalancingSettings,
} from './grpc/balancing';

/** One line (what a container log or `kubectl logs` shows first), naming every bad variable once. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * What a setting must be, in words, from its schema: its `expected` text when it has one (a
 * pattern too long to read), the allowed values of a union of literals, else typebox's own
 * message ("expected integer", "expected string to match '^mongodb…'"),
 * which describes the schema and never carries the value.
 */
function expectation(property: TSchema | undefined, message: string): string {
  if (typeof property?.expected === 'string') return `must be ${property.expected}`;
  const literals = (property?.anyOf as TSchema[] | undefined)?.map((s) => s.const as unknown);
  if (literals?.length && literals.every((l) => typeof l === 'string' || typeof l === 'number'))
    return `must be one of ${literals.join(', ')}`;
  return message.replace(/^Expected/, 'expected');
}

/**
 * Reads a service's settings from environment variables, validated by one typebox schema.
 * Property names are the variable names. Values are converted (numbers, booleans) and
 * defaulted; any problem names the variable and what it must be, never the value: a setting
 * may carry a password (`MONGODB_URI`, `ELASTICSEARCH_URL`) and the message goes to the logs.
 */
export function loadConfig<T extends TObject>(schema: T, env: NodeJS.ProcessEnv = process.env): Static<T> {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const converted = Value.Default(schema, Value.Convert(schema, raw));
  // typebox reports a missing value twice (required, then wrong type): the first per variable says it.
  const byVariable = new Map<string, string>();
  for (const e of Value.Errors(schema, converted)) {
    const name = e.path.replace(/^\//, '') || '(root)';
    if (byVariable.has(name)) continue;
    const problem =
      raw[name] === undefined
        ? 'is required (not set)'
        : `${expectation(schema.properties[name], e.message)} (value not shown)`;
    byVariable.set(name, `${name} ${problem}`);
  }
  if (byVariable.size) throw new ConfigError([...byVariable.values()]);
  return converted as Static<T>;
}

/** LOG_LEVEL, shared by every service's config schema. */
export const LogLevel = Type.Union(
  ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
  { default: 'info' },
);

/**
 * A gRPC address setting with a default: `host:port`, `dns:///host:port` (a headless Service:
 * calls balanced over its pods) or a comma-separated list of `ip:port` (grpc/balancing.ts).
 */
export const GrpcAddress = (fallback: string) =>
  Type.String({ default: fallback, pattern: GRPC_ADDRESS_PATTERN, expected: GRPC_ADDRESS_EXPECTED });

/**
 * The settings of a service's gRPC clients (grpc/balancing.ts): how often an open connection is
 * pinged, and how long an unanswered ping lasts before the connection (a frozen pod) is dropped
 * and its calls go to the other pods.
 */
export const GRPC_CLIENT_SETTINGS = {
  GRPC_KEEPALIVE_TIME_MS: Type.Integer({ default: DEFAULT_KEEPALIVE_TIME_MS, minimum: 100 }),
  GRPC_KEEPALIVE_TIMEOUT_MS: Type.Integer({ default: DEFAULT_KEEPALIVE_TIMEOUT_MS, minimum: 100 }),
};

/** The balancing settings of a service's clients, from its configuration. */
export const balancingSettings = (config: {
  GRPC_KEEPALIVE_TIME_MS: number;
  GRPC_KEEPALIVE_TIMEOUT_MS: number;
}): BalancingSettings => ({
  keepaliveTimeMs: config.GRPC_KEEPALIVE_TIME_MS,
  keepaliveTimeoutMs: config.GRPC_KEEPALIVE_TIMEOUT_MS,
});

/**
 * How long a server keeps a client's connection (then GOAWAY; calls in flight get the grace to
 * finish): a client re-resolves the service's pods on reconnecting, so a pod added by a
 * scale-up gets its share within about a minute. Short enough for that, long enough that a
 * reconnect (one TCP and HTTP/2 handshake per pod and client) stays rare.
 */
export const DEFAULT_MAX_CONNECTION_AGE_MS = 60_000;
/**
 * How long calls in flight on a connection past its age may still finish. The client opens no
 * new call on it after the GOAWAY, so a long grace delays no balancing: it is the longest
 * deadline a caller gives (the knowledge indexer's background index calls: 120 s), so a call
 * is never cut by the age of its connection.
 */
export const DEFAULT_MAX_CONNECTION_AGE_GRACE_MS = 130_000;

/** Where each back service listens unless told otherwise, and where its callers look for it. */
export const DEFAULT_GRPC_PORTS = { knowledge: 50051, catalog: 50052, similarity: 50053 } as const;

/** A back service's own address on loopback, the default of every caller's `*_GRPC_ADDR`. */
export const defaultGrpcAddress = (service: keyof typeof DEFAULT_GRPC_PORTS) =>
  `127.0.0.1:${DEFAULT_GRPC_PORTS[service]}`;

/** Where the gateway listens unless PORT says otherwise: the port of the local addresses `http://<tenant>.localhost:8080`. */
export const DEFAULT_GATEWAY_PORT = 8080;

/** A TCP port setting (0: any free port). */
export const Port = (fallback: number) => Type.Integer({ default: fallback, minimum: 0, maximum: 65535 });

/** The settings of a back service's gRPC server: loopback unless the image says 0.0.0.0, and `<SERVICE>_GRPC_PORT`. */
export function grpcServerSettings<S extends keyof typeof DEFAULT_GRPC_PORTS>(service: S) {
  const port = { [`${service.toUpperCase()}_GRPC_PORT`]: Port(DEFAULT_GRPC_PORTS[service]) } as Record<
    `${Uppercase<S>}_GRPC_PORT`,
    ReturnType<typeof Port>
  >;
  return {
    GRPC_HOST: Type.String({ default: '127.0.0.1', minLength: 1 }),
    ...port,
    GRPC_MAX_CONNECTION_AGE_MS: Type.Integer({ default: DEFAULT_MAX_CONNECTION_AGE_MS, minimum: 1000 }),
    GRPC_MAX_CONNECTION_AGE_GRACE_MS: Type.Integer({ default: DEFAULT_MAX_CONNECTION_AGE_GRACE_MS, minimum: 0 }),
  };
}

/** The settings of a MongoDB-backed service that indexes what it writes through the similarity service (knowledge, catalog). */
/**
 * How the services that own MongoDB collections (knowledge, catalog) talk to it
 * (docs/mongodb.md, "Connection settings"). The defaults suit a replica set and work on a
 * standalone server and the local stand-in, which acknowledge `majority` as one server.
 */
export const MONGODB_SETTINGS = {
  MONGODB_URI: Type.String({ pattern: '^mongodb(\\+srv)?://', description: 'MongoDB connection string' }),
  /** Connections per process to each server: the most operations one process has in flight on it. */
  MONGODB_MAX_POOL_SIZE: Type.Integer({ default: 20, minimum: 1, maximum: 500 }),
  /** Acknowledged by a majority of the replica set, so a failover never rolls an answered write back; or a member count. */
  MONGODB_WRITE_CONCERN: Type.String({
    default: 'majority',
    pattern: '^(majority|[1-9][0-9]?)$',
    expected:
      '`majority` or a number of members from 1 to 99 (0, unacknowledged, is refused: unique-index conflicts must be seen)',
  }),
  /** `majority`: a read sees only writes a majority holds, so never one a failover then rolls back. */
  MONGODB_READ_CONCERN: Type.Union(
    ['majority', 'local'].map((l) => Type.Literal(l)),
    { default: 'majority' },
  ),
  /** `primary`: reads see the writes they follow (a version check, a read after a create); others may read stale. */
  MONGODB_READ_PREFERENCE: Type.Union(
    ['primary', 'primaryPreferred', 'secondary', 'secondaryPreferred', 'nearest'].map((l) => Type.Literal(l)),
    { default: 'primary' },
  ),
  /** How long an operation waits for a server to send it to before it answers UNAVAILABLE (503). */
  MONGODB_SERVER_SELECTION_TIMEOUT_MS: Type.Integer({ default: 3000, minimum: 100, maximum: 120_000 }),
};

/** The MONGODB_* settings but the URI, validated: for a tool that finds its URI elsewhere (the admin CLI). */
export function loadMongoSettings(env: NodeJS.ProcessEnv = process.env) {
  const { MONGODB_URI: _uri, ...settings } = MONGODB_SETTINGS;
  return loadConfig(Type.Object(settings), env);
}

export const INDEXING_SERVICE_SETTINGS = {
  ...MONGODB_SETTINGS,
  /** The similarity service (indexing and search); every call has this deadline, or less: what is left of the call it serves. */
  SIMILARITY_GRPC_ADDR: GrpcAddress(defaultGrpcAddress('similarity')),
  SIMILARITY_DEADLINE_MS: Type.Integer({ default: 10000, minimum: 100 }),
  ...GRPC_CLIENT_SETTINGS,
  /** How often the background indexer catches up on documents not indexed in their latest version. */
  INDEXER_INTERVAL_MS: Type.Integer({ default: 2000, minimum: 50 }),
  /** How long a write waits for its own indexing before it answers anyway (it never fails the write; the indexer catches up). */
  INDEX_ON_WRITE_MS: Type.Integer({ default: 3000, minimum: 50 }),
};

/** Shortest accepted secret, in bytes (HS256's key is 256 bits). */
export const MIN_SECRET_BYTES = 32;

/**
 * SERVICE_AUTH_SECRET: the install's shared secret, which the gateway and the services sign and
 * verify caller assertions with (docs/architecture.md, "Service-to-service authentication").
 * Every service reads it; there is no default, so an install cannot run without one.
 */
export const SERVICE_AUTH_SETTINGS = {
  SERVICE_AUTH_SECRET: Type.String({
    description: `at least ${MIN_SECRET_BYTES} bytes, shared by the services of one install`,
  }),
  /**
   * SERVICE_AUTH_SECRET_ACCEPTED: a second secret accepted when verifying (caller assertions, MCP
   * session ids), never signed with: the overlap of a rotation (docs/operations.md, "Rotating
   * SERVICE_AUTH_SECRET"). Accepted until the operator removes it.
   */
  SERVICE_AUTH_SECRET_ACCEPTED: Type.Optional(
    Type.String({ description: `at least ${MIN_SECRET_BYTES} bytes, also accepted (never signed with)` }),
  ),
};

/** SERVICE_SYSTEM_SECRET: the system credential (reindex, the admin CLI); only the similarity service and the CLI read it. */
export const SYSTEM_AUTH_SETTINGS = {
  SERVICE_SYSTEM_SECRET: Type.Optional(
    Type.String({ description: `at least ${MIN_SECRET_BYTES} bytes, not SERVICE_AUTH_SECRET` }),
  ),
};

const TenantId = Type.String({ pattern: '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$' });

/**
 * What a back service authenticates its callers with: the secret, and TENANT_MODE / TENANT_ID
 * (the gateway's settings of the same names): a single-tenant install refuses callers of other tenants.
 */
export const BACK_SERVICE_AUTH_SETTINGS = {
  ...SERVICE_AUTH_SETTINGS,
  TENANT_MODE: Type.Union([Type.Literal('single'), Type.Literal('host')], { default: 'host' }),
  TENANT_ID: Type.Optional(TenantId),
};

/**
 * The secrets' length and distinctness, checked at start-up (outside the schema, so that no
 * message can ever carry a secret's value): a ConfigError naming the variable.
 */
export function checkServiceAuthSecrets(config: {
  SERVICE_AUTH_SECRET?: string;
  SERVICE_AUTH_SECRET_ACCEPTED?: string;
  SERVICE_SYSTEM_SECRET?: string;
}): void {
  const problems: string[] = [];
  for (const name of ['SERVICE_AUTH_SECRET', 'SERVICE_AUTH_SECRET_ACCEPTED', 'SERVICE_SYSTEM_SECRET'] as const) {
    const value = config[name];
    if (value !== undefined && Buffer.byteLength(value) < MIN_SECRET_BYTES)
      problems.push(`${name} must be at least ${MIN_SECRET_BYTES} bytes (it is ${Buffer.byteLength(value)})`);
  }
  if (config.SERVICE_SYSTEM_SECRET !== undefined && config.SERVICE_SYSTEM_SECRET === config.SERVICE_AUTH_SECRET)
    problems.push('SERVICE_SYSTEM_SECRET must differ from SERVICE_AUTH_SECRET');
  if (
    config.SERVICE_SYSTEM_SECRET !== undefined &&
    config.SERVICE_SYSTEM_SECRET === config.SERVICE_AUTH_SECRET_ACCEPTED
  )
    problems.push('SERVICE_SYSTEM_SECRET must differ from SERVICE_AUTH_SECRET_ACCEPTED');
  if (problems.length) throw new ConfigError(problems);
}

/** The single-tenant install's tenant (TENANT_MODE=single), checked like the gateway checks it. */
export function singleTenantOf(config: {
  TENANT_MODE: 'single' | 'host';
  TENANT_ID?: string | undefined;
}): string | undefined {
  if (config.TENANT_MODE !== 'single') return undefined;
  if (!config.TENANT_ID) throw new ConfigError(['TENANT_ID: required when TENANT_MODE=single (not set)']);
  return config.TENANT_ID;
}
