import { AppError, type Logger, type catalogV1, unary, requireCaller, requireScope } from '@kb/common';
import type { SitesRepo, SiteDoc } from '../data-access/sites-repo';

function siteMessage(s: SiteDoc): catalogV1.Site {
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
    created_at: s.created_at.toISOString(),
  };
}

export function catalogServiceImpl(deps: { logger: Logger; sites: SitesRepo }): catalogV1.CatalogServiceHandlers {
  return {
    ListSites: unary(deps.logger, 'ListSites', async (req: catalogV1.ListSitesRequest__Output) => {
      const caller = requireCaller(req.caller);
      requireScope(caller, 'knowledge:read');
      return { sites: (await deps.sites.list(caller.tenant_id)).map(siteMessage) };
    }),
    GetSite: unary(deps.logger, 'GetSite', async (req: catalogV1.GetSiteRequest__Output) => {
      const caller = requireCaller(req.caller);
      requireScope(caller, 'knowledge:read');
      const site = await deps.sites.find(caller.tenant_id, req.site_id);
      if (!site) throw AppError.notFound('Site not found');
      return siteMessage(site);
    }),
  };
}
