import type { Caller } from '@kb/platform';
import type { EntryVersion } from '../types';
import { skillIndexAsSeenBy } from '../skill-index';
import { canSee } from '../visibility';
import { viewerFor, type EntryContext } from './context';
import { loadVisible } from './load';
import { decodeVersionCursor, encodeVersionCursor, pageSize, takePage, type ItemBytes } from './paging';

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

export interface VersionsPage {
  /** 0: the default page size (100). */
  limit: number;
  cursor?: string;
}

/**
 * GET /knowledge-entries/{id}/versions: the history, oldest first, a page at a time like the
 * entry list (`limit` states, fewer where the next would pass the byte budget, and a cursor after
 * the last one shown). Each state is checked like a current entry: a state the caller could not
 * have read (above the ceiling, another's personal note, a workspace it is not in) is left out as
 * if absent, so lowering an entry's visibility never shows what it said while it was hidden.
 */
export async function entryVersions(
  ctx: EntryContext,
  callerIn: Caller | null | undefined,
  id: string,
  page: VersionsPage,
  bytes: ItemBytes<EntryVersion>,
): Promise<{ versions: EntryVersion[]; nextCursor?: string }> {
  const v = await viewerFor(ctx, callerIn, 'knowledge:read');
  await loadVisible(ctx, v, id);
  const after = page.cursor ? decodeVersionCursor(page.cursor) : 0;
  const limit = pageSize(page.limit);
  const history = ctx.entries.versionsStream(v.caller.tenant_id, id, after, limit + 1);
  const taken = await takePage(
    history,
    limit,
    (h) => (canSee(v, snapshotAccess(h)) ? { ...h, snapshot: skillIndexAsSeenBy(v, h.snapshot) } : null),
    bytes,
  );
  return {
    versions: taken.shown,
    ...(taken.more && taken.last ? { nextCursor: encodeVersionCursor(taken.last.version) } : {}),
  };
}
