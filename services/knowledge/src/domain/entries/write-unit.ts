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
 * Runs a write and, for skills, the skill-index rebuild. Where MongoDB has transactions, both in
 * one transaction, a tenant's skill writes taking turns (in this process, then across replicas
 * by the tenant's lease). Without them, the write first and then a rebuild that starts after
 * it (joined with other writes' rebuilds, each holding the tenant's lease): it reads every
 * skill, so the index names the one just written, and it can always be recomputed.
 */
export async function writeUnit<T>(
  ctx: EntryContext,
  caller: Caller,
  touchesSkills: boolean,
  write: (tx?: Transaction) => Promise<T>,
): Promise<Written<T>> {
  const tenantId = caller.tenant_id;
  if (!touchesSkills) return ctx.transactions.run(async (tx) => ({ result: await write(tx), index: null }));
  if (!(await ctx.transactions.available())) {
    const result = await write();
    return { result, index: await ctx.skillIndexRebuilds(tenantId, caller) };
  }
  const run = () =>
    ctx.transactions.run(async (tx): Promise<Written<T>> => {
      const result = await write(tx);
      return { result, index: await rebuildSkillIndex(ctx.entries, tenantId, caller, tx) };
    });
  return ctx.skillIndexTurns(tenantId, async () => {
    const { result, kept } = await ctx.skillIndexLease(tenantId, run);
    if (kept) return result;
    // This write held the lease past its time: another rebuild may have run beside it. The
    // index is recomputed from all skills once more, so it names every skill written.
    const again = await ctx.skillIndexLease(tenantId, () =>
      ctx.transactions.run((tx) => rebuildSkillIndex(ctx.entries, tenantId, caller, tx)),
    );
    return { result: result.result, index: again.result ?? result.index };
  });
}

/** Indexes right away (bounded); the entry answered carries the model when that worked. */
export async function indexed(ctx: EntryContext, e: Entry, also: (Entry | null)[] = []): Promise<Entry> {
  const models = await ctx.indexer.indexNow([e, ...also.filter((x): x is Entry => x !== null)]);
  const model = models.get(e.id);
  return model ? { ...e, embedding_model: model, indexed_version: e.version, index_pending: false } : e;
}
