import type Koa from 'koa';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import {
  API_TOKEN_PREFIX,
  AppError,
  DEFAULT_JWT_ALGORITHMS,
  DEFAULT_TENANT_CLAIM,
  JWT_ALGORITHMS,
  ROLES,
  SCOPES,
  jwksUrlProblem,
  type Caller,
} from '@kb/platform';
import type { Backends } from '../clients/backends';
import type { Tenant } from './tenancy';
import { bearerToken, unauthenticated } from './bearer';
import { IDENTITY_CACHE_MAX, IdentityCache, TOKEN_REVOCATION_BOUND_MS } from './identity-cache';

export const AUDIT_SOURCE = /^[A-Za-z0-9._:-]{1,64}$/;
export const CLIENT_ID = /^[\x21-\x7e]{1,200}$/;

interface Identity {
  token_id: string;
  user_id: string;
  role: string;
  scopes: string[];
  workspace_ids: string[];
  /** API tokens: when the token expires (ISO 8601; empty: never). */
  expires_at?: string;
}

type KeySets = Map<string, ReturnType<typeof createRemoteJWKSet>>;
type OAuthSettings = NonNullable<NonNullable<Tenant['settings']>['oauth']>;

export interface Authenticator {
  /** The caller the token proves (an API token's identity at most TOKEN_CACHE_TTL_MS old); every failure is the same 401. */
  (ctx: Koa.Context, tenant: Tenant): Promise<Caller>;
  /**
   * The request carries an API token that passed a check within the cache's TTL (in some tenant):
   * lets a client through an address that others behind the same NAT got blocked. Not an oracle:
   * a token becomes known only by passing a check, which a blocked address cannot ask for.
   */
  recognised(ctx: Koa.Context): boolean;
}

/**
 * Authenticates the bearer token against the request's tenant and builds the caller
 * identity that travels with every gRPC request. API tokens are checked by hash in the
 * knowledge service, and the identity is kept for `tokenCacheTtlMs` (the documented revocation
 * bound, docs/threat-model.md; never past the token's expiry); OAuth JWTs are verified here
 * against the tenant's JWKS. Every failure is the same 401, whether the token is unknown,
 * expired, revoked or another tenant's. X-Scopes and the audit headers are read per request.
 */
export function authenticator(backends: Backends, tokenCacheTtlMs = TOKEN_REVOCATION_BOUND_MS): Authenticator {
  const keySets: KeySets = new Map();
  const identities = new IdentityCache<Identity>({ ttlMs: tokenCacheTtlMs, max: IDENTITY_CACHE_MAX });

  const authenticate = async function authenticate(ctx: Koa.Context, tenant: Tenant): Promise<Caller> {
    const token = bearerToken(ctx);
    let identity: Identity;
    if (token.startsWith(API_TOKEN_PREFIX)) {
      identity = await identities.identity(token, tenant.id, (hash) =>
        backends.knowledge.call('AuthenticateApiToken', {
          caller: { tenant_id: tenant.id, request_id: ctx.state.requestId as string },
          token_sha256: hash,
        }),
      );
    } else if (token.split('.').length === 3) {
      identity = await jwtIdentity(token, tenant, keySets);
    } else {
      throw unauthenticated();
    }
    return callerOf(ctx, tenant, identity);
  } as Authenticator;

  authenticate.recognised = (ctx) => {
    try {
      const token = bearerToken(ctx);
      return token.startsWith(API_TOKEN_PREFIX) && identities.recognised(token);
    } catch {
      return false; // the check itself answers the error
    }
  };
  return authenticate;
}

function callerOf(ctx: Koa.Context, tenant: Tenant, identity: Identity): Caller {
  const { auditSource, clientId } = auditHeaders(ctx);
  return {
    tenant_id: tenant.id,
    user_id: identity.user_id,
    role: identity.role,
    scopes: effectiveScopes(ctx, identity.scopes),
    workspace_ids: identity.workspace_ids,
    audit_source: auditSource,
    client_id: clientId,
    request_id: ctx.state.requestId as string,
    token_id: identity.token_id,
  };
}

/** X-Scopes can only narrow: the effective scopes are the intersection (none for an empty header). */
function effectiveScopes(ctx: Koa.Context, granted: string[]): string[] {
  if (ctx.headers['x-scopes'] === undefined) return granted;
  const asked = ctx.get('X-Scopes').split(/\s+/);
  return granted.filter((s) => asked.includes(s));
}

/** Who the audit trail names as the writer's tool: X-Audit-Source (default api) and X-Client-Id, both checked. */
function auditHeaders(ctx: Koa.Context): { auditSource: string; clientId: string } {
  // Sent, even empty, it must match (as documented); absent is the default.
  const sentSource = ctx.headers['x-audit-source'] !== undefined;
  const auditSource = sentSource ? ctx.get('X-Audit-Source') : 'api';
  if (!AUDIT_SOURCE.test(auditSource)) {
    throw AppError.invalid([
      {
        loc: ['header', 'x-audit-source'],
        msg: "String should match pattern '^[A-Za-z0-9._:-]{1,64}$'",
        type: 'string_pattern_mismatch',
      },
    ]);
  }
  const clientId = ctx.get('X-Client-Id');
  if (ctx.headers['x-client-id'] !== undefined && !CLIENT_ID.test(clientId)) {
    throw AppError.invalid([
      {
        loc: ['header', 'x-client-id'],
        msg: "String should match pattern '^[\\x21-\\x7e]{1,200}$' (1 to 200 printable ASCII characters, no spaces)",
        type: 'string_pattern_mismatch',
      },
    ]);
  }
  return { auditSource, clientId };
}

/**
 * An OAuth access token verified against the tenant's issuer and JWKS (one key set per JWKS URL,
 * kept): signed with one of the tenant's algorithms (asymmetric only), for the tenant's audience,
 * and naming this tenant in its tenant claim, so a token another tenant's users get from a shared
 * issuer is refused here. Settings the admin CLI would refuse (no audience, a JWKS over plain
 * http to another host) accept no token at all.
 */
async function jwtIdentity(token: string, tenant: Tenant, keySets: KeySets): Promise<Identity> {
  const oauth = tenant.settings?.oauth;
  if (!oauth?.jwks_url || !oauth.issuer || !oauth.audience || jwksUrlProblem(oauth.jwks_url)) throw unauthenticated();
  const allowed: readonly string[] = JWT_ALGORITHMS;
  const configured = (oauth.algorithms ?? []).filter((a) => allowed.includes(a));
  const algorithms = configured.length ? configured : [...DEFAULT_JWT_ALGORITHMS];
  let keySet = keySets.get(oauth.jwks_url);
  if (!keySet) {
    keySet = createRemoteJWKSet(new URL(oauth.jwks_url), { timeoutDuration: 3000, cooldownDuration: 30_000 });
    keySets.set(oauth.jwks_url, keySet);
  }
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keySet, {
      issuer: oauth.issuer,
      audience: oauth.audience,
      algorithms,
      requiredClaims: ['sub', 'exp'],
    }));
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    // A JWKS endpoint that cannot be reached is our problem, not the caller's.
    if (code === 'ERR_JWKS_TIMEOUT' || /fetch failed|ECONNREFUSED/.test((err as Error).message)) {
      throw AppError.unavailable('The token issuer cannot be reached');
    }
    throw unauthenticated();
  }
  if (payload[oauth.tenant_claim || DEFAULT_TENANT_CLAIM] !== tenant.id) throw unauthenticated();
  return claimsIdentity(payload, oauth);
}

/** The identity a verified token's claims give, under the claim names the tenant configured. */
function claimsIdentity(payload: JWTPayload, oauth: OAuthSettings): Identity {
  const role = payload[oauth.role_claim || 'role'];
  if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role))
    throw unauthenticated('Token carries no valid role');
  const rawScopes = payload[oauth.scope_claim || 'scope'];
  const scopes = (
    Array.isArray(rawScopes) ? rawScopes : typeof rawScopes === 'string' ? rawScopes.split(/\s+/) : []
  ).filter((s): s is string => typeof s === 'string' && (SCOPES as readonly string[]).includes(s));
  const rawWorkspaces = payload[oauth.workspaces_claim || 'workspace_ids'];
  const workspaceIds = Array.isArray(rawWorkspaces)
    ? rawWorkspaces.filter((w): w is string => typeof w === 'string')
    : [];
  return {
    token_id: `jwt:${payload.jti ?? payload.sub}`,
    user_id: String(payload.sub),
    role,
    scopes,
    workspace_ids: workspaceIds,
  };
}
