import { AppError, type Caller } from '@kb/platform';
import { SEARCH_MAX_LIMIT } from '@kb/search';
import { isExpired } from '../entry-types';
import { canSee, searchFilter } from '../visibility';
import { viewerFor, type EntryContext } from './context';

/** Entry ids one EntrySearchAccess call may name: the hits of one search at most. */
export const MAX_ACCESS_IDS = SEARCH_MAX_LIMIT;

export interface EntrySearchAccess {
  filter: ReturnType<typeof searchFilter>;
  entries: { id: string; version: number; indexed: boolean; readable: boolean }[];
}

/**
 * What the gateway's read path needs from MongoDB to answer an entry search straight from the
 * index (docs/architecture.md, "The read path"): the caller's visibility filter as the tenant's
 * settings make it (the one SearchEntries sends the similarity service), and for the hits it
 * found, whether the caller may read each as stored now (MongoDB has the last word, as in
 * SearchEntries), the version MongoDB holds and whether the index holds exactly that version. A
 * hit whose version is not current sends the search back to SearchEntries; a deleted entry is absent.
 */
export async function entrySearchAccess(
  ctx: EntryContext,
  callerIn: Caller | null | undefined,
  ids: string[],
): Promise<EntrySearchAccess> {
  const v = await viewerFor(ctx, callerIn, 'knowledge:read');
  if (ids.length > MAX_ACCESS_IDS)
    throw AppError.invalid([{ loc: ['entry_ids'], msg: `At most ${MAX_ACCESS_IDS} entry ids`, type: 'too_long' }]);
  const states = ids.length > 0 ? await ctx.entries.indexStates(v.caller.tenant_id, ids) : [];
  const now = Date.now();
  return {
    filter: searchFilter(v),
    entries: states.map((s) => ({
      id: s.id,
      version: s.version,
      indexed: s.indexed,
      readable: canSee(v, s) && !isExpired(s, now),
    })),
  };
}
