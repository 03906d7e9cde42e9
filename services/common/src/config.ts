import { Type, type Static, type TObject } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** One line (what a container log or `kubectl logs` shows first), naming every bad variable once. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
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
  // typebox reports a missing value twice (required, then wrong type): the first per variable says it.
  const byVariable = new Map<string, string>();
  for (const e of Value.Errors(schema, converted)) {
    const name = e.path.replace(/^\//, '') || '(root)';
    if (byVariable.has(name)) continue;
    const problem = raw[name] === undefined ? 'is required (not set)' : `${e.message.replace(/^Expected/, 'expected')} (got ${JSON.stringify(raw[name])})`;
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

/** A `host:port` gRPC address setting with a default. */
export const GrpcAddress = (fallback: string) => Type.String({ default: fallback, pattern: '^[^\\s:]+:\\d{1,5}$' });
