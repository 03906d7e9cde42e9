import { parentGuard } from '@kb/rules';
import { AppError } from '@kb/platform';
import type { SitesRepo } from '../data-access/sites-repo';

/**
 * A site as a parent: products and the tenant's default pointer refer to it, and it may be
 * deleted only while none does. Writes that make something refer to it run under its claim;
 * its delete marks it first (the protocol and why it holds: @kb/rules parent-guard.ts).
 */
export function siteGuard(sites: SitesRepo) {
  return parentGuard(sites.guard, { what: 'Site', missing: () => AppError.notFound('Site not found') });
}
