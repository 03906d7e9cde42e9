import { randomUUID } from 'node:crypto';
import { AppError, isUuid, type catalogV1 } from '@kb/common';
import type { SitesRepo, SiteView } from '../data-access/sites-repo';
import type { ProductsRepo } from '../data-access/products-repo';
import { siteGuard } from './site-guard';

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
  await makeDefault(sites, tenantId, id, { onlyIfNone: !req.is_default });
  return found(await sites.find(tenantId, id));
}

const found = (site: SiteView | null): SiteView => {
  // Deleted by a concurrent request between this one's write and its read.
  if (!site) throw AppError.notFound('Site not found');
  return site;
};

/**
 * Points the tenant's default at the site (or only when it has none: a new site), under the
 * site's claim, so a concurrent delete of the site either sees the pointer (409) or wins first
 * (404): the pointer never names a deleted site.
 */
async function makeDefault(sites: SitesRepo, tenantId: string, siteId: string, options: { onlyIfNone: boolean }): Promise<void> {
  const point = () => (options.onlyIfNone ? sites.setDefaultIfNone(tenantId, siteId) : sites.setDefault(tenantId, siteId));
  // The undo (a claim dropped in a stall, the site deleted meanwhile; parent-guard.ts): drop the pointer, pick another.
  const undo = async () => {
    await sites.clearDefault(tenantId, siteId);
    await ensureDefault(sites, tenantId);
  };
  await siteGuard(sites).referring(tenantId, siteId, point, undo);
}

/**
 * When the tenant has sites but no default, the oldest one that can be claimed becomes it. A
 * delete of the only site clears the pointer; a site created meanwhile found the pointer still
 * set (so did not become the default) but was written before the clearing, so it is found here.
 */
async function ensureDefault(sites: SitesRepo, tenantId: string): Promise<void> {
  if (await sites.defaultId(tenantId)) return;
  for (const candidate of await sites.oldestFirst(tenantId)) {
    try {
      await makeDefault(sites, tenantId, candidate._id, { onlyIfNone: true });
      return;
    } catch (err) {
      if (!(err instanceof AppError)) throw err; // a candidate deleted meanwhile: the next one
    }
  }
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
  if (req.is_default === true) await makeDefault(sites, tenantId, site._id, { onlyIfNone: false });
  return found(await sites.find(tenantId, site._id));
}

/** Why the site may not be deleted now, or null; asked while the delete holds it. */
async function siteInUse(sites: SitesRepo, products: ProductsRepo, tenantId: string, siteId: string): Promise<string | null> {
  if ((await products.countInSite(tenantId, siteId)) > 0) return 'The site still has products; delete them first';
  if ((await sites.defaultId(tenantId)) === siteId && (await sites.count(tenantId)) > 1) {
    return 'The default site cannot be deleted; make another site the default first';
  }
  return null;
}

/** knowledge:admin; 409 while the site has products or is the default of several, also ones being written right now. */
export async function deleteSite(sites: SitesRepo, products: ProductsRepo, tenantId: string, siteId: string): Promise<void> {
  const site = isUuid(siteId) ? await sites.find(tenantId, siteId) : null;
  if (!site || site._id !== siteId) throw AppError.notFound('Site not found');
  await siteGuard(sites).remove(tenantId, site._id, () => siteInUse(sites, products, tenantId, site._id));
  // It was the default only if it was the tenant's only site; sites created meanwhile get the default.
  await sites.clearDefault(tenantId, site._id);
  await ensureDefault(sites, tenantId);
}
