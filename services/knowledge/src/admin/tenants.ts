/**
 * Tenant administration (the admin CLI's `tenant create` and `tenant settings`): plain
 * operations on the knowledge service's own data access. Outcomes an operator can cause are
 * results, not exceptions; how they are worded is the caller's business.
 */
import { AppError } from '@kb/platform';
import type { KnowledgeModels } from '../data-access/models';
import { tenantsRepo } from '../data-access/tenants-repo';
import type { Tenant } from '../domain/types';
import { applySettingAssignments, effectiveSettings, type TenantSettings } from '../domain/tenant-settings';

/** A tenant id: a DNS label (lowercase letters, digits and hyphens, 1-63 characters), so `<id>.localhost` addresses it. */
export const TENANT_ID = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** A host name a tenant answers at (lowercase). */
export const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

export const isTenantId = (id: string): boolean => TENANT_ID.test(id);

export interface CreateTenantInput {
  id: string;
  /** Default: the id. */
  name?: string;
  /** Host names that address the tenant besides `<id>.localhost` (lowercased). */
  hosts?: string[];
  /** An existing tenant is left as it is (the Helm chart's bootstrap Job runs on every install and upgrade). */
  ifMissing?: boolean;
}

export type CreateTenantResult =
  | { status: 'created'; tenant: { id: string; name: string; hosts: string[] } }
  /** `ifMissing` and the tenant exists: nothing changed. */
  | { status: 'unchanged'; id: string }
  | { status: 'exists'; id: string }
  | { status: 'invalid_id'; id: string }
  | { status: 'invalid_host'; host: string }
  | { status: 'host_taken'; host: string };

export async function createTenant(models: KnowledgeModels, input: CreateTenantInput): Promise<CreateTenantResult> {
  const tenants = tenantsRepo(models);
  const { id } = input;
  if (!isTenantId(id)) return { status: 'invalid_id', id };
  if (input.ifMissing && (await tenants.findById(id))) return { status: 'unchanged', id };
  const hosts = (input.hosts ?? []).map((h) => h.toLowerCase());
  for (const host of hosts) {
    if (!HOST_NAME.test(host)) return { status: 'invalid_host', host };
    if (await tenants.hostTakenByOther(host, id)) return { status: 'host_taken', host };
  }
  const created = await tenants.create({ id, name: input.name ?? id, hosts });
  if (!created) return { status: 'exists', id };
  return { status: 'created', tenant: { id: created.id, name: created.name, hosts: created.hosts } };
}

/** The tenant, or null when there is none with this id. */
export function findTenant(models: KnowledgeModels, id: string): Promise<Tenant | null> {
  return tenantsRepo(models).findById(id);
}

export interface TenantSettingsInput {
  tenantId: string;
  /** `key=value` assignments (`hybrid_weights.description=0.7`, `role_writable_types.Agent=knowledge,memory`), applied in order. */
  set?: string[];
}

export type TenantSettingsResult =
  | { status: 'ok'; settings: TenantSettings }
  | { status: 'tenant_not_found'; tenantId: string }
  /** The assignments were refused (nothing stored): the reason, and the failing paths when the schema named them. */
  | { status: 'invalid'; message: string; issues?: { path: string; msg: string }[] };

/** The tenant's effective settings, after storing the given assignments (all or none) when there are any. */
export async function tenantSettings(
  models: KnowledgeModels,
  input: TenantSettingsInput,
): Promise<TenantSettingsResult> {
  const tenants = tenantsRepo(models);
  const tenant = await tenants.findById(input.tenantId);
  if (!tenant) return { status: 'tenant_not_found', tenantId: input.tenantId };
  let settings = effectiveSettings(tenant.settings);
  const assignments = input.set ?? [];
  if (assignments.length) {
    try {
      settings = applySettingAssignments(settings, assignments);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return {
        status: 'invalid',
        message: err.message,
        ...(err.issues ? { issues: err.issues.map((i) => ({ path: i.loc.slice(1).join('.'), msg: i.msg })) } : {}),
      };
    }
    await tenants.saveSettings(tenant.id, settings as unknown as Record<string, unknown>);
  }
  return { status: 'ok', settings };
}
