import type { Caller } from '@kb/common';
import type { Entry } from '../types';
import { viewerFor, type EntryContext } from './context';
import { loadVisible } from './load';

/** GET /knowledge-entries/{id}: 404 for an entry the caller may not read, as for a missing one. */
export async function getEntry(ctx: EntryContext, callerIn: Caller | null | undefined, id: string): Promise<Entry> {
  return loadVisible(ctx, await viewerFor(ctx, callerIn, 'knowledge:read'), id);
}
