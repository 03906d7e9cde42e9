import { randomUUID } from 'node:crypto';
import { AppError, isUuid, type catalogV1 } from '@kb/common';
import type { SitesRepo, SiteView } from '../data-access/sites-repo';
import type { ProductsRepo } from '../data-access/products-repo';

export function siteMessage(s: SiteView): catalogV1.Site {
  return {
    id: s._id,
    tenant_id: s.tenant_id,
    slug: s.slug,
    name: s.name,
    ...(s.domain !== null ? { domain: s.domain } : {}),
    language: s.language,
    site_type: s.site_type,
    ...(s.platform !== null ? { platform: s.platform } : {}),
    config_json: JSON.stringify(s.config ?? {}),
    is_default: s.is_default,
    created_at: new Date(s.created_at).toISOString(),
  };
}

const parseConfig = (json: string | undefined): Record<string, unknown> => {
  if (!json) return {};
  const v = JSON.parse(json) as unknown;
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw AppError.invalid([{ loc: ['body', 'config'], msg: 'Input should be a valid dictionary', type: 'dict_type' }]);
  return v as Record<string, unknown>;
};

export async function createSite(sites: SitesRepo, tenantId: string, req: catalogV1.CreateSiteRequest__Output): Promise<SiteView> {
  if (isUuid(req.slug)) throw AppError.invalid([{ loc: ['body', 'slug'], msg: 'A slug may not look like a UUID (site_id accepts both)', type: 'value_error' }]);
  const id = randomUUID();
  try {
    await sites.insert({
      _id: id,
      tenant_id: tenantId,
      slug: req.slug,
      name: req.name,
      domain: req.domain ?? null,
      language: req.language,
      site_type: req.site_type,
      platform: req.platform ?? null,
      config: parseConfig(req.config_json),
      created_at: new Date(),
    });
  } catch (err) {
    if ((err as { code?: number }).code === 11000) throw AppError.conflict(`A site with slug "${req.slug}" already exists`);
    throw err;
  }
  if (req.is_default) await sites.setDefault(tenantId, id);
  else await sites.setDefaultIfNone(tenantId, id);
  return (await sites.find(tenantId, id)) as SiteView;
}

export async function updateSite(sites: SitesRepo, tenantId: string, req: catalogV1.UpdateSiteRequest__Output): Promise<SiteView> {
  const site = isUuid(req.site_id) ? await sites.find(tenantId, req.site_id) : null;
  if (!site || site._id !== req.site_id) throw AppError.notFound('Site not found');
  if (req.is_default === false && site.is_default) {
    throw AppError.conflict('The default site stays the default until another site is made the default');
  }
  const set: Record<string, unknown> = {};
  if (req.name !== undefined) set.name = req.name;
  if (req.domain !== undefined) set.domain = req.domain;
  else if (req.clear_domain) set.domain = null;
  if (req.site_type !== undefined) set.site_type = req.site_type;
  if (req.platform !== undefined) set.platform = req.platform;
  else if (req.clear_platform) set.platform = null;
  if (req.config_json !== undefined) set.config = parseConfig(req.config_json);
  await sites.update(tenantId, site._id, set);
  if (req.is_default === true) await sites.setDefault(tenantId, site._id);
  return (await sites.find(tenantId, site._id)) as SiteView;
}

export async function deleteSite(sites: SitesRepo, products: ProductsRepo, tenantId: string, siteId: string): Promise<void> {
  const site = isUuid(siteId) ? await sites.find(tenantId, siteId) : null;
  if (!site || site._id !== siteId) throw AppError.notFound('Site not found');
  if ((await products.countInSite(tenantId, site._id)) > 0) throw AppError.conflict('The site still has products; delete them first');
  if (site.is_default && (await sites.count(tenantId)) > 1) {
    throw AppError.conflict('The default site cannot be deleted; make another site the default first');
  }
  await sites.remove(tenantId, site._id);
  if (site.is_default) await sites.clearDefault(tenantId, site._id);
}
