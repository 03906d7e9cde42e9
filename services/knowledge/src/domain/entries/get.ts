import type { Caller } from '@kb/common';
import type { EntryRecord } from '../../data-access/entries-repo';
import { viewerFor, type EntryContext } from './context';
import { loadVisible } from './load';

/** GET /knowledge-entries/{id}: 404 for an entry the caller may not read, as for a missing one. */
export async function getEntry(
  ctx: EntryContext,
  callerIn: Caller | null | undefined,
  id: string,
): Promise<EntryRecord> {
  return loadVisible(ctx, await viewerFor(ctx, callerIn, 'knowledge:read'), id);
}
