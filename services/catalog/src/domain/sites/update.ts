import { AppError, requireScope, type Caller, type catalogV1 } from '@kb/platform';
import { makeDefault } from './default-site';
import { found, parseConfig, siteById, type SiteDeps } from './deps';
import type { SiteChanges, SiteView } from '../types';

/**
 * The stored fields an update changes: only those sent; clear_domain and clear_platform (null in
 * the HTTP body) clear those two. The slug is not among them: it never changes.
 */
export function siteChanges(req: catalogV1.UpdateSiteRequest__Output): SiteChanges {
  const set: SiteChanges = {};
  if (req.name !== undefined) set.name = req.name;
  if (req.domain !== undefined) set.domain = req.domain;
  else if (req.clear_domain) set.domain = null;
  if (req.site_type !== undefined) set.site_type = req.site_type;
  if (req.platform !== undefined) set.platform = req.platform;
  else if (req.clear_platform) set.platform = null;
  if (req.config_json !== undefined) set.config = parseConfig(req.config_json);
  return set;
}

/**
 * Updates a site (knowledge:write) by uuid. is_default: true makes it the default; false on the
 * default is a 409, since a tenant with sites always has exactly one default.
 */
export async function updateSite(
  deps: Pick<SiteDeps, 'sites'>,
  caller: Caller,
  req: catalogV1.UpdateSiteRequest__Output,
): Promise<SiteView> {
  requireScope(caller, 'knowledge:write');
  const { sites } = deps;
  const tenantId = caller.tenant_id;
  const site = await siteById(sites, tenantId, req.site_id);
  if (req.is_default === false && site.is_default) {
    throw AppError.conflict('The default site stays the default until another site is made the default');
  }
  await sites.update(tenantId, site.id, siteChanges(req));
  if (req.is_default === true) await makeDefault(sites, tenantId, site.id, { onlyIfNone: false });
  return found(await sites.find(tenantId, site.id));
}
