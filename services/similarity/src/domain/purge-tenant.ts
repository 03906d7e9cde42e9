import { AppError, type similarityV1 } from '@kb/platform';
import { purgeTenantDocuments, type TenantIndexCount } from '../data-access/tenant-purge';
import type { IndexDeps } from './deps';
import { writeCaller } from './callers';

/** PurgeTenant: the tenant's documents removed from every index of the install (or only counted). */
export function purgeTenant(
  deps: IndexDeps,
  req: similarityV1.PurgeTenantRequest__Output,
): Promise<TenantIndexCount[]> {
  writeCaller(req.caller);
  if (!req.tenant_id) throw AppError.invalid([{ loc: ['tenant_id'], msg: 'tenant_id is required', type: 'missing' }]);
  return purgeTenantDocuments(deps.es, deps.indices.prefix, req.tenant_id, req.dry_run);
}
