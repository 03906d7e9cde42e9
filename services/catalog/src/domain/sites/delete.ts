import { requireScope, type Caller } from '@kb/platform';
import { siteGuard } from '../site-guard';
import { ensureDefault } from './default-site';
import { siteById, type SiteDeps } from './deps';

/** Why the site may not be deleted now, or null; asked while the delete holds it. */
async function siteInUse(deps: SiteDeps, tenantId: string, siteId: string): Promise<string | null> {
  if ((await deps.products.countInSite(tenantId, siteId)) > 0) return 'The site still has products; delete them first';
  if ((await deps.sites.defaultId(tenantId)) === siteId && (await deps.sites.count(tenantId)) > 1) {
    return 'The default site cannot be deleted; make another site the default first';
  }
  return null;
}

/** knowledge:admin; 409 while the site has products or is the default of several, also ones being written right now. */
export async function deleteSite(deps: SiteDeps, caller: Caller, siteId: string): Promise<void> {
  requireScope(caller, 'knowledge:admin');
  const { sites } = deps;
  const tenantId = caller.tenant_id;
  const site = await siteById(sites, tenantId, siteId);
  await siteGuard(sites).remove(tenantId, site.id, () => siteInUse(deps, tenantId, site.id));
  // It was the default only if it was the tenant's only site; sites created meanwhile get the default.
  await sites.clearDefault(tenantId, site.id);
  await ensureDefault(sites, tenantId);
}
