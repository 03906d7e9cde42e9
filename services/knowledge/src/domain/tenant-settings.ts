import { Type, type Static } from '@sinclair/typebox';
import {
  AppError,
  DEFAULT_JWT_ALGORITHMS,
  DEFAULT_TENANT_CLAIM,
  JWT_ALGORITHMS,
  ROLES,
  jwksUrlProblem,
} from '@kb/platform';
import { VISIBILITY_LEVELS, WRITABLE_ENTRY_TYPES, assertValid } from '@kb/rules';
import { DEFAULT_VECTOR_FIELD, VECTOR_FIELD_CHOICES } from '@kb/search';

const literals = <T extends readonly string[]>(values: T) => Type.Union(values.map((v) => Type.Literal(v)));
const Ceiling = literals(VISIBILITY_LEVELS);
const WritableType = literals(WRITABLE_ENTRY_TYPES);

/** Tenant settings (docs/operations.md, "Admin CLI"), stored per tenant, edited with the admin CLI. */
export const TenantSettingsSchema = Type.Object(
  {
    workspaces_enabled: Type.Boolean({ default: false }),
    variant_strategy: literals(['all', 'children_only'] as const),
    default_vector_field: literals(VECTOR_FIELD_CHOICES),
    hybrid_weights: Type.Object(
      {
        description: Type.Number({ minimum: 0, maximum: 1 }),
        properties: Type.Number({ minimum: 0, maximum: 1 }),
        attributes: Type.Number({ minimum: 0, maximum: 1 }),
      },
      { additionalProperties: false },
    ),
    role_visibility_ceilings: Type.Record(Type.String(), Ceiling),
    role_writable_types: Type.Record(Type.String(), Type.Array(WritableType)),
    oauth: Type.Object(
      {
        issuer: Type.String(),
        jwks_url: Type.String(),
        audience: Type.String(),
        role_claim: Type.String({ minLength: 1 }),
        scope_claim: Type.String({ minLength: 1 }),
        workspaces_claim: Type.String({ minLength: 1 }),
        /** JWS algorithms accepted: asymmetric ones only (the keys come from a public JWKS). */
        algorithms: Type.Array(literals(JWT_ALGORITHMS), { minItems: 1, uniqueItems: true }),
        /** The claim that must equal the tenant's id, so that tenants sharing an issuer do not share tokens. */
        tenant_claim: Type.String({ minLength: 1 }),
      },
      { additionalProperties: false },
    ),
    rate_limit: Type.Object(
      {
        /** Requests per minute per caller (API token, or JWT issuer and subject); 0: the gateway's RATE_LIMIT_PER_MINUTE. */
        requests_per_minute: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type TenantSettings = Static<typeof TenantSettingsSchema>;

export const DEFAULT_TENANT_SETTINGS: TenantSettings = {
  workspaces_enabled: false,
  variant_strategy: 'all',
  default_vector_field: DEFAULT_VECTOR_FIELD,
  hybrid_weights: { description: 0.5, properties: 0.3, attributes: 0.2 },
  role_visibility_ceilings: { Admin: 'restricted', Supervisor: 'restricted', Agent: 'internal', Viewer: 'community' },
  role_writable_types: {
    Admin: ['knowledge', 'skill', 'process', 'glossary', 'memory', 'bootstrap'],
    Supervisor: ['knowledge', 'skill', 'process', 'glossary', 'memory', 'bootstrap'],
    Agent: ['knowledge', 'process', 'glossary', 'memory'],
    Viewer: [],
  },
  oauth: {
    issuer: '',
    jwks_url: '',
    audience: '',
    role_claim: 'role',
    scope_claim: 'scope',
    workspaces_claim: 'workspace_ids',
    algorithms: [...DEFAULT_JWT_ALGORITHMS],
    tenant_claim: DEFAULT_TENANT_CLAIM,
  },
  rate_limit: { requests_per_minute: 0 },
};

/** Stored settings over the defaults (a tenant stores only what it changed). */
export function effectiveSettings(stored: Record<string, unknown> | undefined): TenantSettings {
  const merged = structuredClone(DEFAULT_TENANT_SETTINGS) as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(stored ?? {})) {
    const base = merged[key];
    merged[key] =
      base && typeof base === 'object' && !Array.isArray(base) && value && typeof value === 'object'
        ? { ...(base as object), ...(value as object) }
        : value;
  }
  return merged as unknown as TenantSettings;
}

/**
 * Applies `key=value` assignments (dotted keys for nested settings, comma lists for type
 * lists, JSON for booleans and numbers) and validates the result as a whole.
 */
export function applySettingAssignments(current: TenantSettings, assignments: string[]): TenantSettings {
  const next = structuredClone(current) as unknown as Record<string, unknown>;
  for (const assignment of assignments) {
    const eq = assignment.indexOf('=');
    if (eq <= 0) throw new AppError('invalid', `Expected key=value, got "${assignment}"`);
    const key = assignment.slice(0, eq).trim();
    const rawValue = assignment.slice(eq + 1).trim();
    const path = key.split('.');
    const top = path[0] as string;
    if (!(top in TenantSettingsSchema.properties)) {
      throw new AppError(
        'invalid',
        `Unknown setting "${top}"; known: ${Object.keys(TenantSettingsSchema.properties).join(', ')}`,
      );
    }
    let value: unknown = rawValue;
    const list = top === 'role_writable_types' || key === 'oauth.algorithms';
    const numeric = top === 'hybrid_weights' || top === 'rate_limit';
    if (list) value = rawValue === '' ? [] : rawValue.split(',').map((s) => s.trim());
    else if (rawValue === 'true' || rawValue === 'false') value = rawValue === 'true';
    else if (numeric && rawValue !== '' && !Number.isNaN(Number(rawValue))) value = Number(rawValue);
    if (top === 'role_visibility_ceilings' || top === 'role_writable_types') {
      const role = path[1];
      if (!role || !(ROLES as readonly string[]).includes(role)) {
        throw new AppError('invalid', `Setting "${key}" needs a role: ${ROLES.map((r) => `${top}.${r}`).join(', ')}`);
      }
    }
    let target = next;
    for (const segment of path.slice(0, -1)) {
      const child = target[segment];
      if (!child || typeof child !== 'object')
        throw new AppError('invalid', `Setting "${key}" is not a nested setting`);
      target = child as Record<string, unknown>;
    }
    target[path[path.length - 1] as string] = value;
  }
  const settings = assertValid(TenantSettingsSchema, next, ['settings']);
  const problem = oauthProblem(settings.oauth);
  if (problem) throw new AppError('invalid', problem);
  return settings;
}

/**
 * OAuth is on when an issuer, a JWKS URL or an audience is set, and then needs all three: a
 * token is only accepted for this API (audience) from this issuer, with keys fetched safely.
 */
function oauthProblem(oauth: TenantSettings['oauth']): string | undefined {
  const { issuer, jwks_url: jwksUrl, audience } = oauth;
  if (!issuer && !jwksUrl && !audience) return undefined;
  const missing = Object.entries({ issuer, jwks_url: jwksUrl, audience })
    .filter(([, v]) => !v)
    .map(([k]) => `oauth.${k}`);
  if (missing.length) return `OAuth needs issuer, jwks_url and audience together; not set: ${missing.join(', ')}`;
  return jwksUrlProblem(jwksUrl);
}
