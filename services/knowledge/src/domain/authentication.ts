import { AppError } from '@kb/platform';
import type { TenantsRepo } from '../data-access/tenants-repo';
import type { TokensRepo } from '../data-access/tokens-repo';
import type { ApiToken, Tenant } from './types';

/** The tenant a request was addressed to: by id (TENANT_MODE=single) or by host name. */
export async function resolveTenant(
  tenants: TenantsRepo,
  input: { tenantId?: string; host?: string },
): Promise<Tenant> {
  let tenant: Tenant | null = null;
  if (input.tenantId) tenant = await tenants.findById(input.tenantId);
  else if (input.host) tenant = await tenants.findByHost(input.host.toLowerCase());
  if (!tenant) throw AppError.notFound('Tenant not found');
  return tenant;
}

/**
 * The identity behind an API token hash in one tenant. Unknown, revoked, expired and
 * other-tenant tokens all get the same answer, so nothing tells a token exists elsewhere.
 */
export async function authenticateApiToken(tokens: TokensRepo, tenantId: string, hash: string): Promise<ApiToken> {
  const token = /^[0-9a-f]{64}$/.test(hash) ? await tokens.findByHash(tenantId, hash) : null;
  const now = Date.now();
  if (!token || token.revoked_at || (token.expires_at && token.expires_at.getTime() <= now)) {
    throw new AppError('unauthenticated', 'Invalid or expired token');
  }
  return token;
}

/** The two, bound to the repositories (the gRPC layer holds use cases, never a repository). */
export function authenticationUseCases(tenants: TenantsRepo, tokens: TokensRepo) {
  return {
    resolveTenant: (input: { tenantId?: string; host?: string }) => resolveTenant(tenants, input),
    authenticateApiToken: (tenantId: string, hash: string) => authenticateApiToken(tokens, tenantId, hash),
  };
}
export type AuthenticationUseCases = ReturnType<typeof authenticationUseCases>;
