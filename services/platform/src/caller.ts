import { AppError } from './errors';
import type { Caller__Output } from './generated/kb/common/v1/Caller';

export type Caller = Caller__Output;

export const ROLES = ['Admin', 'Supervisor', 'Agent', 'Viewer'] as const;
export type Role = (typeof ROLES)[number];

export const SCOPES = ['knowledge:read', 'knowledge:write', 'knowledge:admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** The caller every back-service handler starts from; a request without one is refused. */
export function requireCaller(caller: Caller | null | undefined): Caller {
  if (!caller || !caller.tenant_id) throw new AppError('unauthenticated', 'No caller identity on the request');
  return caller;
}

/** 403 unless the caller holds the scope (scopes are already narrowed by X-Scopes). */
export function requireScope(caller: Caller, scope: Scope): void {
  if (!caller.scopes.includes(scope)) throw AppError.forbidden(`Missing scope ${scope}`);
}

/**
 * The caller a service uses for calls it makes on its own behalf (indexing, reindex): an Admin
 * with every scope, in one tenant, or in none (`''`: the similarity service's cross-tenant
 * system caller). `service` names it in the token id the callee logs.
 */
export function systemCaller(service: string, tenantId: string): Caller {
  return {
    tenant_id: tenantId,
    user_id: '',
    role: 'Admin',
    scopes: [...SCOPES],
    workspace_ids: [],
    audit_source: 'system',
    client_id: '',
    request_id: '',
    token_id: `system:${service}`,
  };
}
