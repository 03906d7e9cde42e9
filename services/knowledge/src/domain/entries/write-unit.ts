import type { Caller } from '@kb/platform';
import type { Transaction } from '../../data-access/transactions';
import type { Entry } from '../types';
import { rebuildSkillIndex } from '../skill-index';
import type { EntryContext } from './context';

export interface Written<T> {
  result: T;
  /** The skill index as the write left it, when it rewrote it (to index with the entry). */
  index: Entry | null;
}

/**
 * Runs a write and, for skills, the skill-index rebuild: in one transaction where MongoDB
 * supports them, else the rebuild runs right after the write (it is recomputed from all
 * skills, so it cannot drift).
 */
export async function writeUnit<T>(
  ctx: EntryContext,
  caller: Caller,
  touchesSkills: boolean,
  write: (tx?: Transaction) => Promise<T>,
): Promise<Written<T>> {
  const tenantId = caller.tenant_id;
  const rebuild = (tx?: Transaction) =>
    touchesSkills ? rebuildSkillIndex(ctx.entries, tenantId, caller, tx) : Promise.resolve(null);
  const run = () =>
    ctx.transactions.run(async (tx): Promise<Written<T>> => {
      const result = await write(tx);
      return { result, index: await rebuild(tx) };
    });
  return touchesSkills ? ctx.skillIndexTurns(tenantId, run) : run();
}

/** Indexes right away (bounded); the entry answered carries the model when that worked. */
export async function indexed(ctx: EntryContext, e: Entry, also: (Entry | null)[] = []): Promise<Entry> {
  const models = await ctx.indexer.indexNow([e, ...also.filter((x): x is Entry => x !== null)]);
  const model = models.get(e.id);
  return model ? { ...e, embedding_model: model, indexed_version: e.version, index_pending: false } : e;
}
