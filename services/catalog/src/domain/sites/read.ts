import { requireScope, type Caller } from '@kb/platform';
import { requireSite, type SiteDeps } from './deps';
import type { SiteView } from '../types';

/** The caller's sites (knowledge:read), the default first, then by slug. */
export async function listSites(deps: Pick<SiteDeps, 'sites'>, caller: Caller): Promise<SiteView[]> {
  requireScope(caller, 'knowledge:read');
  return deps.sites.list(caller.tenant_id);
}

/** A site of the caller's tenant by uuid or slug (knowledge:read). */
export async function getSite(deps: Pick<SiteDeps, 'sites'>, caller: Caller, idOrSlug: string): Promise<SiteView> {
  requireScope(caller, 'knowledge:read');
  return requireSite(deps, caller.tenant_id, idOrSlug);
}
