import { AppError } from '@kb/platform';
import { isUuid, parseJsonField } from '@kb/rules';
import type { ProductsRepo } from '../../data-access/products-repo';
import type { SitesRepo } from '../../data-access/sites-repo';
import type { SiteView } from '../types';

/** What the site use cases need (a subset of CatalogDeps). */
export interface SiteDeps {
  sites: SitesRepo;
  products: ProductsRepo;
}

/** A site read back after this request's write; a concurrent delete may have removed it meanwhile. */
export const found = (site: SiteView | null): SiteView => {
  if (!site) throw AppError.notFound('Site not found');
  return site;
};

/** A site of the tenant by uuid or slug (products and searches name their site either way). */
export async function requireSite(
  deps: Pick<SiteDeps, 'sites'>,
  tenantId: string,
  idOrSlug: string,
): Promise<SiteView> {
  return found(await deps.sites.find(tenantId, idOrSlug));
}

/** A site by uuid only (updates and deletes name the site by its id, never by its slug). */
export async function siteById(sites: SitesRepo, tenantId: string, siteId: string): Promise<SiteView> {
  const site = isUuid(siteId) ? await sites.find(tenantId, siteId) : null;
  if (!site || site.id !== siteId) throw AppError.notFound('Site not found');
  return site;
}

/** The site's config from its JSON text: an object, or a 422 (empty text is no config). */
export function parseConfig(json: string | undefined): Record<string, unknown> {
  const v = parseJsonField(json, ['body', 'config']);
  if (v === undefined) return {};
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw AppError.invalid([{ loc: ['body', 'config'], msg: 'Input should be a valid dictionary', type: 'dict_type' }]);
  return v as Record<string, unknown>;
}
