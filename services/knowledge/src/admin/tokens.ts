/**
 * API token administration (the admin CLI's `token create` and `token revoke`): the stand-in
 * for the product's administration interface and the way a new user gets a token.
 */
import { API_TOKEN_PREFIX, type Role, type Scope } from '@kb/platform';
import type { KnowledgeModels } from '../data-access/models';
import { tenantsRepo } from '../data-access/tenants-repo';
import { tokensRepo } from '../data-access/tokens-repo';
import { defaultScopesForRole, newApiToken } from '../domain/tokens';

export interface CreateTokenInput {
  tenantId: string;
  role: Role;
  /** The user the token acts for (a uuid); null: none. */
  userId?: string | null;
  /** Default: what the role can use (defaultScopesForRole). */
  scopes?: Scope[];
  name?: string | null;
  /** Null: it does not expire. */
  expiresAt?: Date | null;
  /** Workspace ids (uuids) the token's user belongs to. */
  workspaceIds?: string[];
}

export type CreateTokenResult =
  | {
      status: 'created';
      /** The token id (also the start of the token after its prefix). */
      id: string;
      /** The token itself: shown once, only its hash is stored. */
      token: string;
      tenantId: string;
      role: Role;
      scopes: string[];
      expiresAt: Date | null;
    }
  | { status: 'tenant_not_found'; tenantId: string };

export async function createToken(models: KnowledgeModels, input: CreateTokenInput): Promise<CreateTokenResult> {
  if (!(await tenantsRepo(models).findById(input.tenantId)))
    return { status: 'tenant_not_found', tenantId: input.tenantId };
  const scopes = input.scopes ?? defaultScopesForRole(input.role);
  const expiresAt = input.expiresAt ?? null;
  const { id, token, hash } = newApiToken();
  await tokensRepo(models).create({
    id,
    hash,
    tenant_id: input.tenantId,
    user_id: input.userId ?? null,
    role: input.role,
    scopes,
    workspace_ids: input.workspaceIds ?? [],
    name: input.name ?? null,
    expires_at: expiresAt,
  });
  return { status: 'created', id, token, tenantId: input.tenantId, role: input.role, scopes, expiresAt };
}

export interface RevokeTokenInput {
  tenantId: string;
  /** The token id, a prefix of it (at least 4 characters), or the start of the token itself (`kbt_<id>…`). */
  token: string;
}

export type RevokeTokenResult =
  | { status: 'revoked'; id: string; name: string | null; tenantId: string }
  | { status: 'tenant_not_found'; tenantId: string }
  /** Fewer than 4 characters of the id were given. */
  | { status: 'too_short' }
  | { status: 'no_match' }
  | { status: 'ambiguous'; matches: number };

export async function revokeToken(models: KnowledgeModels, input: RevokeTokenInput): Promise<RevokeTokenResult> {
  if (!(await tenantsRepo(models).findById(input.tenantId)))
    return { status: 'tenant_not_found', tenantId: input.tenantId };
  const given = input.token.replace(new RegExp(`^${API_TOKEN_PREFIX}`), '').split('_')[0] ?? '';
  if (given.length < 4) return { status: 'too_short' };
  const tokens = tokensRepo(models);
  const matches = await tokens.findByIdPrefix(input.tenantId, given);
  if (matches.length === 0) return { status: 'no_match' };
  if (matches.length > 1) return { status: 'ambiguous', matches: matches.length };
  const match = matches[0]!;
  await tokens.revoke(input.tenantId, match.id);
  return { status: 'revoked', id: match.id, name: match.name ?? null, tenantId: input.tenantId };
}
