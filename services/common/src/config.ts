import { Type, type Static, type TObject } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads a service's settings from environment variables, validated by one typebox schema.
 * Property names are the variable names. Values are converted (numbers, booleans) and
 * defaulted; any problem names the variable.
 */
export function loadConfig<T extends TObject>(schema: T, env: NodeJS.ProcessEnv = process.env): Static<T> {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const converted = Value.Default(schema, Value.Convert(schema, raw));
  const problems = [...Value.Errors(schema, converted)].map((e) => {
    const name = e.path.replace(/^\//, '') || '(root)';
    const got = raw[name] === undefined ? 'not set' : `got ${JSON.stringify(raw[name])}`;
    return `${name}: ${e.message} (${got})`;
  });
  if (problems.length) throw new ConfigError([...new Set(problems)]);
  return converted as Static<T>;
}

/** LOG_LEVEL, shared by every service's config schema. */
export const LogLevel = Type.Union(
  ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
  { default: 'info' },
);

/** A `host:port` gRPC address setting with a default. */
export const GrpcAddress = (fallback: string) => Type.String({ default: fallback, pattern: '^[^\\s:]+:\\d{1,5}$' });
