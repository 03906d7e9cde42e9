import type { Caller } from '@kb/common';
import type { Entry } from '../types';
import { skillIndexAsSeenBy } from '../skill-index';
import { canSee, type Viewer } from '../visibility';
import { viewerFor, type EntryContext } from './context';
import { loadVisible } from './load';
import { decodeTranslationCursor, encodeTranslationCursor, pageSize, takePage, type ItemBytes } from './paging';

export interface TranslationMember {
  entry: Entry;
  isSource: boolean;
  /** The source's title, summary or content changed after this translation's own text last did. */
  outdated: boolean;
}

/** The members of a group the viewer may read, in the group's order, each with whether it is behind its source. */
export function translationMembers(v: Viewer, group: Entry[]): TranslationMember[] {
  const source = group.find((m) => m.translation_of === null) ?? null;
  return group
    .filter((m) => canSee(v, m))
    .map((m) => ({
      entry: skillIndexAsSeenBy(v, m),
      isSource: m === source,
      outdated: source !== null && m !== source && source.content_changed_at.getTime() > m.content_changed_at.getTime(),
    }));
}

export interface TranslationsPage {
  /** 0: the default page size (100). */
  limit: number;
  cursor?: string;
}

/**
 * GET /knowledge-entries/{id}/translations: the entry's translation group, a page at a time like
 * the entry list (oldest member first; `limit` members, fewer where the next would pass the byte
 * budget, and a cursor after the last one shown).
 */
export async function entryTranslations(
  ctx: EntryContext,
  callerIn: Caller | null | undefined,
  id: string,
  page: TranslationsPage,
  bytes: ItemBytes<TranslationMember>,
): Promise<{ groupId: string; members: TranslationMember[]; nextCursor?: string }> {
  const v = await viewerFor(ctx, callerIn, 'knowledge:read');
  const after = page.cursor ? decodeTranslationCursor(page.cursor) : null;
  const entry = await loadVisible(ctx, v, id);
  const group = await ctx.entries.translationGroup(v.caller.tenant_id, entry.translation_group_id);
  const members = translationMembers(v, group).filter((m) => !after || isAfter(m.entry, after));
  const taken = await takePage(members, pageSize(page.limit), (m) => m, bytes);
  return {
    groupId: entry.translation_group_id,
    members: taken.shown,
    ...(taken.more && taken.last ? { nextCursor: encodeTranslationCursor(taken.last.entry) } : {}),
  };
}

/** Whether a member comes after a place in the group's order (created_at, then id). */
function isAfter(e: Entry, place: { createdAt: Date; id: string }): boolean {
  const at = new Date(e.created_at).getTime();
  return at > place.createdAt.getTime() || (at === place.createdAt.getTime() && e.id > place.id);
}
