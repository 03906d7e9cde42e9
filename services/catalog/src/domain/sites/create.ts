import { randomUUID } from 'node:crypto';
import { AppError, requireScope, type Caller, type catalogV1 } from '@kb/platform';
import { isUuid } from '@kb/rules';
import { makeDefault } from './default-site';
import { found, parseConfig, type SiteDeps } from './deps';
import type { SiteView } from '../types';

/**
 * A new site (knowledge:write). The slug is unique per tenant (409) and may not look like a
 * uuid (site_id accepts both). The tenant's first site becomes its default whatever is_default says.
 */
export async function createSite(
  deps: Pick<SiteDeps, 'sites'>,
  caller: Caller,
  req: catalogV1.CreateSiteRequest__Output,
): Promise<SiteView> {
  requireScope(caller, 'knowledge:write');
  const { sites } = deps;
  const tenantId = caller.tenant_id;
  if (isUuid(req.slug))
    throw AppError.invalid([
      { loc: ['body', 'slug'], msg: 'A slug may not look like a UUID (site_id accepts both)', type: 'value_error' },
    ]);
  const id = randomUUID();
  const inserted = await sites.insert({
    id,
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
  if (!inserted) throw AppError.conflict(`A site with slug "${req.slug}" already exists`);
  await makeDefault(sites, tenantId, id, { onlyIfNone: !req.is_default });
  return found(await sites.find(tenantId, id));
}
