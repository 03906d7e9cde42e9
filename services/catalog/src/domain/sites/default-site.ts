import { AppError } from '@kb/platform';
import type { SitesRepo } from '../../data-access/sites-repo';
import { siteGuard } from '../site-guard';

/**
 * Points the tenant's default at the site (or only when it has none: a new site), under the
 * site's claim, so a concurrent delete of the site either sees the pointer (409) or wins first
 * (404): the pointer never names a deleted site.
 */
export async function makeDefault(
  sites: SitesRepo,
  tenantId: string,
  siteId: string,
  options: { onlyIfNone: boolean },
): Promise<void> {
  const point = () =>
    options.onlyIfNone ? sites.setDefaultIfNone(tenantId, siteId) : sites.setDefault(tenantId, siteId);
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
export async function ensureDefault(sites: SitesRepo, tenantId: string): Promise<void> {
  if (await sites.defaultId(tenantId)) return;
  for (const candidate of await sites.oldestFirst(tenantId)) {
    try {
      await makeDefault(sites, tenantId, candidate.id, { onlyIfNone: true });
      return;
    } catch (err) {
      if (!(err instanceof AppError)) throw err; // a candidate deleted meanwhile: the next one
    }
  }
}
