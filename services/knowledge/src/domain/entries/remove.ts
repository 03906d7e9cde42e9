import type { Caller } from '@kb/platform';
import { viewerFor, type EntryContext } from './context';
import { changedMeanwhile } from './input';
import { loadForWrite } from './load';
import { tombstoneOf } from './records';
import { writeUnit } from './write-unit';

/** DELETE /knowledge-entries/{id}: gone at once; the tombstone takes it out of the search index. */
export async function removeEntry(
  ctx: EntryContext,
  callerIn: Caller | null | undefined,
  id: string,
  expectedVersion: number | undefined,
): Promise<void> {
  const v = await viewerFor(ctx, callerIn, 'knowledge:write');
  const caller = v.caller;
  const current = await loadForWrite(ctx, v, id, expectedVersion);
  const tombstone = tombstoneOf(current);
  const written = await writeUnit(ctx, caller, current.type === 'skill', async (tx) => {
    if (!(await ctx.entries.deleteIfVersion(caller.tenant_id, id, current.version, tx))) throw changedMeanwhile();
    await ctx.entries.addTombstone(tombstone, tx);
    return true;
  });
  await ctx.indexer.removeNow([tombstone]);
  if (written.index) await ctx.indexer.indexNow([written.index]);
}
