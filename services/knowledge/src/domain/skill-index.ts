import { randomUUID } from 'node:crypto';
import type { Caller } from '@kb/platform';
import type { EntriesRepo } from '../data-access/entries-repo';
import type { Transaction } from '../data-access/transactions';
import type { Entry } from './types';
import { newEntryRecord, nextUpdatedAt, tombstoneOf, versionRecord } from './entries/records';
import { canSee, lowestLevel, type Viewer } from './visibility';

export interface SkillIndexItem {
  id: string;
  title: string;
  trigger_description: string;
  examples: string[];
  category_id: string;
  language: string;
  visibility: string;
  /** The skill's workspace, for workspace skills: only its members see the line. */
  workspace_id?: string;
}

/** The index's Markdown: one line per skill, `- **<title>** (`<id>`): <trigger_description>`. */
export function skillIndexContent(items: SkillIndexItem[]): string {
  return ['# Skill index', '', ...items.map((s) => `- **${s.title}** (\`${s.id}\`): ${s.trigger_description}`)].join(
    '\n',
  );
}

/**
 * What the index says, from every skill (oldest first), in the oldest one's category: as visible
 * as its most visible skill (each reader gets only the skills they may read).
 */
export function skillIndexFields(skills: Entry[]) {
  const items: SkillIndexItem[] = skills.map((s) => ({
    id: s.id,
    title: s.title,
    trigger_description: String((s.metadata as { trigger_description?: unknown }).trigger_description ?? ''),
    examples: ((s.metadata as { examples?: string[] }).examples ?? []).slice(),
    category_id: s.category_id,
    language: s.language,
    visibility: s.visibility,
    ...(s.workspace_id ? { workspace_id: s.workspace_id } : {}),
  }));
  return {
    content: skillIndexContent(items),
    metadata: { skills: items },
    visibility: lowestLevel(items.map((i) => i.visibility)),
    category_id: skills[0]!.category_id,
    summary: `${items.length} skill${items.length === 1 ? '' : 's'}`,
  };
}
type SkillIndexFields = ReturnType<typeof skillIndexFields>;

/** The first skill index of a tenant: a system entry in the first skill's language. */
function newSkillIndex(tenantId: string, fields: SkillIndexFields, language: string, now: Date): Entry {
  return newEntryRecord(
    {
      ...fields,
      tenant_id: tenantId,
      title: 'Skill index',
      type: 'skill_index',
      language,
      translation_group_id: randomUUID(),
      translation_of: null,
      source: 'system',
      source_reference: null,
      layer: null,
      tags: [],
      workspace_id: null,
      created_by_user_id: null,
      owner_key: null,
      search_keywords: [],
      similarity_text: null,
      project_ids: null,
      expires_at: null,
    },
    now,
  );
}

function unchanged(existing: Entry, fields: SkillIndexFields): boolean {
  return (
    existing.content === fields.content &&
    existing.visibility === fields.visibility &&
    existing.category_id === fields.category_id &&
    JSON.stringify(existing.metadata) === JSON.stringify(fields.metadata)
  );
}

/**
 * Recomputes the tenant's singleton `skill_index` entry from every skill (so it never keeps a
 * deleted or renamed skill). With no skills left the index entry is removed. Returns the index
 * entry when it was written (for indexing), else null. Its history names the system as the writer.
 */
export async function rebuildSkillIndex(
  entries: EntriesRepo,
  tenantId: string,
  caller: Caller,
  tx?: Transaction,
): Promise<Entry | null> {
  const skills = await entries.ofType(tenantId, 'skill', tx);
  const existing = (await entries.ofType(tenantId, 'skill_index', tx))[0] ?? null;
  const system = { ...caller, audit_source: 'system' };
  if (skills.length === 0) {
    if (existing && (await entries.deleteIfVersion(tenantId, existing.id, existing.version, tx))) {
      await entries.addTombstone(tombstoneOf(existing), tx);
    }
    return null;
  }
  const fields = skillIndexFields(skills);
  const now = new Date();
  if (!existing) {
    const doc = newSkillIndex(tenantId, fields, skills[0]!.language, now);
    await entries.insert(doc, tx); // a new translation group: no unique index to meet
    await entries.addVersion(versionRecord(doc, 'create', system, now), tx);
    return doc;
  }
  if (unchanged(existing, fields)) return null;
  const set = { ...fields, updated_at: nextUpdatedAt(existing.updated_at, now.getTime()), content_changed_at: now };
  const updated = await entries.updateIfVersion(tenantId, existing.id, existing.version, set, tx);
  if (updated) await entries.addVersion(versionRecord(updated, 'update', system, now), tx);
  return updated;
}

/**
 * The skill index as a viewer may read it: only the skills the viewer could read themselves
 * (a workspace skill only for that workspace's members once workspaces are on; nothing above the
 * viewer's ceiling), the content and summary written from those. Other entries, and an index
 * whose every skill the viewer may read, are returned as they are. Applies to stored states too
 * (the version history keeps the whole index of its day).
 */
export function skillIndexAsSeenBy<T extends { type?: unknown; metadata?: unknown }>(v: Viewer, e: T): T {
  if (e.type !== 'skill_index') return e;
  const items = ((e.metadata as { skills?: SkillIndexItem[] } | undefined)?.skills ?? []).filter(Boolean);
  const seen = items.filter((i) =>
    canSee(v, { visibility: i.visibility, owner_key: null, workspace_id: i.workspace_id ?? null }),
  );
  if (seen.length === items.length) return e;
  return {
    ...e,
    metadata: { ...(e.metadata as object), skills: seen },
    content: skillIndexContent(seen),
    summary: `${seen.length} skill${seen.length === 1 ? '' : 's'}`,
  };
}
