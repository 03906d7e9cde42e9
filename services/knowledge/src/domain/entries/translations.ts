import type { Caller } from '@kb/common';
import type { Entry } from '../types';
import { skillIndexAsSeenBy } from '../skill-index';
import { canSee, type Viewer } from '../visibility';
import { viewerFor, type EntryContext } from './context';
import { loadVisible } from './load';

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

/** GET /knowledge-entries/{id}/translations: the entry's translation group. */
export async function entryTranslations(
  ctx: EntryContext,
  callerIn: Caller | null | undefined,
  id: string,
): Promise<{ groupId: string; members: TranslationMember[] }> {
  const v = await viewerFor(ctx, callerIn, 'knowledge:read');
  const entry = await loadVisible(ctx, v, id);
  const group = await ctx.entries.translationGroup(v.caller.tenant_id, entry.translation_group_id);
  return { groupId: entry.translation_group_id, members: translationMembers(v, group) };
}
