import type { Caller } from '@kb/platform';
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

/** A member as the viewer sees it (null: one it may not read), with whether it is behind its source. */
export function translationMember(
  v: Viewer,
  source: Pick<Entry, 'id' | 'content_changed_at'> | null,
  m: Entry,
): TranslationMember | null {
  if (!canSee(v, m)) return null;
  const isSource = source !== null && m.id === source.id;
  return {
    entry: skillIndexAsSeenBy(v, m),
    isSource,
    outdated: source !== null && !isSource && source.content_changed_at.getTime() > m.content_changed_at.getTime(),
  };
}

/** The members of a group the viewer may read, in the group's order, each with whether it is behind its source. */
export function translationMembers(v: Viewer, group: Entry[]): TranslationMember[] {
  const source = group.find((m) => m.translation_of === null) ?? null;
  return group.flatMap((m) => translationMember(v, source, m) ?? []);
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
  const entry = await loadVisible(ctx, v, id);
  const after = page.cursor ? decodeTranslationCursor(page.cursor) : null;
  const groupId = entry.translation_group_id;
  const source = await ctx.entries.translationSource(v.caller.tenant_id, groupId);
  const limit = pageSize(page.limit);
  const members = ctx.entries.translationGroupStream(v.caller.tenant_id, groupId, after, limit + 1);
  const taken = await takePage(members, limit, (m) => translationMember(v, source, m), bytes);
  return {
    groupId,
    members: taken.shown,
    ...(taken.more && taken.last ? { nextCursor: encodeTranslationCursor(taken.last) } : {}),
  };
}
