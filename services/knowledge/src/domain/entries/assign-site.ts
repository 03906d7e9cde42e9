import type { Caller } from '@kb/common';
import { readableBy } from '../visibility';
import { viewerFor, type EntryContext } from './context';

/** PUT /sites/{site_id}/knowledge: records the site on the entries the caller can see; the others count as not found. */
export async function assignSite(
  ctx: EntryContext,
  callerIn: Caller | null | undefined,
  siteId: string,
  ids: string[],
) {
  const v = await viewerFor(ctx, callerIn, 'knowledge:write');
  const unique = [...new Set(ids)];
  const visible = new Set(
    (await ctx.entries.findManyReadable(v.caller.tenant_id, unique, readableBy(v))).map((e) => e.id),
  );
  let already = 0;
  const notFoundIds: string[] = [];
  const changed: string[] = [];
  for (const id of unique) {
    if (!visible.has(id)) notFoundIds.push(id);
    else if (await ctx.entries.addSite(v.caller.tenant_id, id, siteId)) changed.push(id);
    else already += 1;
  }
  // The site filter of entry search reads the index: index the assigned entries now (bounded,
  // never failing the call; the background indexer has them queued either way).
  if (changed.length > 0) await ctx.indexer.indexNow(await ctx.entries.findManyOfTenant(v.caller.tenant_id, changed));
  return { site_id: siteId, assigned: changed.length, already_assigned: already, not_found: notFoundIds };
}
