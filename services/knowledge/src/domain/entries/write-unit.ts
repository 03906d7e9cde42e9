import type { ClientSession } from 'mongoose';
import type { Caller } from '@kb/common';
import type { EntryRecord } from '../../data-access/entries-repo';
import { rebuildSkillIndex } from '../skill-index';
import type { EntryContext } from './context';

/** Runs the calls for one key one after another, in the order they came (a failed one does not stop the next). */
export function oneAtATimePerKey() {
  const last = new Map<string, Promise<unknown>>();
  return <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const next = (last.get(key) ?? Promise.resolve()).then(fn, fn);
    last.set(
      key,
      next.catch(() => undefined),
    );
    return next;
  };
}
export type OneAtATime = ReturnType<typeof oneAtATimePerKey>;

export interface Written<T> {
  result: T;
  /** The skill index as the write left it, when it rewrote it (to index with the entry). */
  index: EntryRecord | null;
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
  write: (session?: ClientSession) => Promise<T>,
): Promise<Written<T>> {
  const tenantId = caller.tenant_id;
  const rebuild = (session?: ClientSession) =>
    touchesSkills ? rebuildSkillIndex(ctx.entries, tenantId, caller, session) : Promise.resolve(null);
  const run = async (): Promise<Written<T>> => {
    if (await ctx.mongo.supportsTransactions()) {
      let out: Written<T> | undefined;
      await ctx.mongo.connection.transaction(async (session) => {
        const result = await write(session);
        out = { result, index: await rebuild(session) };
      });
      return out as Written<T>;
    }
    const result = await write();
    return { result, index: await rebuild() };
  };
  return touchesSkills ? ctx.skillIndexTurns(tenantId, run) : run();
}

/** Indexes right away (bounded); the entry answered carries the model when that worked. */
export async function indexed(
  ctx: EntryContext,
  e: EntryRecord,
  also: (EntryRecord | null)[] = [],
): Promise<EntryRecord> {
  const models = await ctx.indexer.indexNow([e, ...also.filter((x): x is EntryRecord => x !== null)]);
  const model = models.get(e._id);
  return model ? { ...e, embedding_model: model, indexed_version: e.version, index_pending: false } : e;
}
