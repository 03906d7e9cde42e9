import type { Caller } from '@kb/common';
import type { EntryVersion } from '../types';
import { skillIndexAsSeenBy } from '../skill-index';
import { canSee } from '../visibility';
import { viewerFor, type EntryContext } from './context';
import { loadVisible } from './load';

/** The fields of a stored state that decide who may read it; a state without a visibility counts as restricted. */
export function snapshotAccess(h: EntryVersion): {
  visibility: string;
  owner_key: string | null;
  workspace_id: string | null;
} {
  const s = h.snapshot as { visibility?: string; owner_key?: string | null; workspace_id?: string | null };
  return {
    visibility: s.visibility ?? 'restricted',
    owner_key: s.owner_key ?? null,
    workspace_id: s.workspace_id ?? null,
  };
}

/**
 * GET /knowledge-entries/{id}/versions: the history, oldest first. Each state is checked like a
 * current entry: a state the caller could not have read (above the ceiling, another's personal
 * note, a workspace it is not in) is left out as if absent, so lowering an entry's visibility
 * never shows what it said while it was hidden.
 */
export async function entryVersions(
  ctx: EntryContext,
  callerIn: Caller | null | undefined,
  id: string,
): Promise<EntryVersion[]> {
  const v = await viewerFor(ctx, callerIn, 'knowledge:read');
  await loadVisible(ctx, v, id);
  const history = await ctx.entries.versions(v.caller.tenant_id, id);
  return history
    .filter((h) => canSee(v, snapshotAccess(h)))
    .map((h) => ({ ...h, snapshot: skillIndexAsSeenBy(v, h.snapshot) }));
}
