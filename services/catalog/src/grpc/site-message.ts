import type { catalogV1 } from '@kb/platform';
import type { SiteView } from '../domain/types';

/** A site as a catalog.v1.Site message: null domain and platform are left out (proto3 optional). */
export function siteMessage(s: SiteView): catalogV1.Site {
  return {
    id: s.id,
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
