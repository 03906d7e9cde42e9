import { AppError, requireScope, type Caller } from '@kb/platform';

const noCaller = () => new AppError('unauthenticated', 'No caller identity on the request');

/**
 * Index*, Delete*, Begin/FinishReindex: a tenant's caller (needs knowledge:write, and may only
 * touch its own tenant's documents) or a system caller with an empty tenant_id (reindex and
 * catch-up run across tenants; documents carry their own tenant_id). A caller without a tenant
 * gets here only with the system credential, and Begin/FinishReindex only for it (server-auth.ts).
 */
export function writeCaller(caller: Caller | null | undefined): { caller: Caller; tenantId: string | undefined } {
  if (!caller) throw noCaller();
  if (!caller.tenant_id) return { caller, tenantId: undefined };
  requireScope(caller, 'knowledge:write');
  return { caller, tenantId: caller.tenant_id };
}

/** Search*, Similar* and Embed: always one tenant (every query filters by it) and knowledge:read. */
export function readCaller(caller: Caller | null | undefined): { caller: Caller; tenantId: string } {
  if (!caller || !caller.tenant_id) throw noCaller();
  requireScope(caller, 'knowledge:read');
  return { caller, tenantId: caller.tenant_id };
}

/** DescribeModel: any caller, the system one (no tenant) included: reindex asks which model it builds for. */
export function anyCaller(caller: Caller | null | undefined): Caller {
  if (!caller) throw noCaller();
  return caller;
}
