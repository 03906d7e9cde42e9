import type { Caller } from '@kb/platform';
import type { Entry } from '../types';
import { viewerFor, type EntryContext } from './context';
import { loadVisible } from './load';
import { skillIndexAsSeenBy } from '../skill-index';

/** GET /knowledge-entries/{id}: 404 for an entry the caller may not read, as for a missing one. */
export async function getEntry(ctx: EntryContext, callerIn: Caller | null | undefined, id: string): Promise<Entry> {
  const v = await viewerFor(ctx, callerIn, 'knowledge:read');
  return skillIndexAsSeenBy(v, await loadVisible(ctx, v, id));
}
