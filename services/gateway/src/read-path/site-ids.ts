import { LRUCache } from 'lru-cache';
import type { Caller } from '@kb/platform';
import type { Backends } from '../clients/backends';

/** How long a site's id (by uuid or slug) is kept: a deleted site's slug is refused at most this late. */
const SITE_TTL_MS = 5_000;
const SITES_KEPT = 10_000;

/** A site's id by the uuid or slug a request names it by. */
export type SiteId = (caller: Caller, site: string) => Promise<string>;

/** The site's id (the request may name it by slug), kept SITE_TTL_MS; unknown: the catalog's 404. */
export function siteIds(backends: Backends): SiteId {
  const sites = new LRUCache<string, string>({ max: SITES_KEPT, ttl: SITE_TTL_MS });
  return async (caller, site) => {
    const key = `${caller.tenant_id}\u0000${site}`;
    const kept = sites.get(key);
    if (kept) return kept;
    const found = await backends.catalog.call('GetSite', { caller, site_id: site });
    sites.set(key, found.id);
    return found.id;
  };
}
