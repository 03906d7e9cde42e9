import { AppError, type Caller } from '@kb/platform';
import { callerWith } from '../access';
import { readableBy } from '../visibility';
import { viewerFor, type EntryContext } from './context';

const siteNotFound = () => AppError.notFound('Site not found');

/**
 * PUT /sites/{site_id}/knowledge: records the site on the entries the caller can see; the others
 * count as not found. A site deleted meanwhile is a 404 and stays on no entry: the assignment
 * writes first and then asks whether the site was deleted; the delete (forgetSite) records that
 * first and then sweeps. So either this assignment sees the record and takes its writes back, or
 * its writes came before the record and the sweep takes them off.
 */
export async function assignSite(
  ctx: EntryContext,
  callerIn: Caller | null | undefined,
  siteId: string,
  ids: string[],
) {
  const v = await viewerFor(ctx, callerIn, 'knowledge:write');
  const tenantId = v.caller.tenant_id;
  if (await ctx.entries.siteDeleted(tenantId, siteId)) throw siteNotFound();
  const unique = [...new Set(ids)];
  const visible = new Set((await ctx.entries.findManyReadable(tenantId, unique, readableBy(v))).map((e) => e.id));
  let already = 0;
  const notFoundIds: string[] = [];
  const changed: string[] = [];
  for (const id of unique) {
    if (!visible.has(id)) notFoundIds.push(id);
    else if (await ctx.entries.addSite(tenantId, id, siteId)) changed.push(id);
    else already += 1;
  }
  if (changed.length > 0 && (await ctx.entries.siteDeleted(tenantId, siteId))) {
    await ctx.entries.removeSite(tenantId, siteId);
    throw siteNotFound();
  }
  // The site filter of entry search reads the index: index the assigned entries now (bounded,
  // never failing the call; the background indexer has them queued either way).
  if (changed.length > 0) await ctx.indexer.indexNow(await ctx.entries.findManyOfTenant(tenantId, changed));
  return { site_id: siteId, assigned: changed.length, already_assigned: already, not_found: notFoundIds };
}

/**
 * After the catalog deleted a site (knowledge:admin): records it as deleted, then takes it off
 * every entry. Idempotent, so a delete whose sweep failed is finished by the next attempt.
 */
export async function forgetSite(ctx: EntryContext, callerIn: Caller | null | undefined, siteId: string) {
  const caller = callerWith(callerIn, 'knowledge:admin');
  await ctx.entries.markSiteDeleted(caller.tenant_id, siteId, new Date());
  // The search index catches up through the background indexer; search re-checks site_ids in MongoDB meanwhile.
  return { entries_updated: await ctx.entries.removeSite(caller.tenant_id, siteId) };
}
