import { randomUUID } from 'node:crypto';
import type { ClientSession } from 'mongoose';
import type { Caller } from '@kb/common';
import type { EntriesRepo, EntryRecord } from '../data-access/entries-repo';
import { highestLevel } from './visibility';

export interface SkillIndexItem {
  id: string;
  title: string;
  trigger_description: string;
  examples: string[];
  category_id: string;
  language: string;
  visibility: string;
}

/** The index's Markdown: one line per skill, `- **<title>** (`<id>`): <trigger_description>`. */
export function skillIndexContent(items: SkillIndexItem[]): string {
  return ['# Skill index', '', ...items.map((s) => `- **${s.title}** (\`${s.id}\`): ${s.trigger_description}`)].join('\n');
}

/**
 * Recomputes the tenant's singleton `skill_index` entry from every skill (so it never keeps a
 * deleted or renamed skill). With no skills left the index entry is removed. Returns the index
 * entry when it was written (for indexing), else null.
 */
export async function rebuildSkillIndex(entries: EntriesRepo, tenantId: string, caller: Caller, session?: ClientSession): Promise<EntryRecord | null> {
  const skills = await entries.ofType(tenantId, 'skill', session);
  const existing = (await entries.ofType(tenantId, 'skill_index', session))[0] ?? null;
  const audit = { ...caller, audit_source: 'system' };
  if (skills.length === 0) {
    if (existing && (await entries.deleteIfVersion(tenantId, existing._id, existing.version, session))) {
      await entries.addTombstone({ _id: existing._id, tenant_id: tenantId, version: existing.version + 1, deleted_at: new Date() }, session);
    }
    return null;
  }
  const items: SkillIndexItem[] = skills.map((s) => ({
    id: s._id,
    title: s.title,
    trigger_description: String((s.metadata as { trigger_description?: unknown }).trigger_description ?? ''),
    examples: ((s.metadata as { examples?: string[] }).examples ?? []).slice(),
    category_id: s.category_id,
    language: s.language,
    visibility: s.visibility,
  }));
  const content = skillIndexContent(items);
  const metadata = { skills: items };
  const visibility = highestLevel(items.map((i) => i.visibility));
  const categoryId = skills[0]!.category_id;
  const now = new Date();
  const version = (v: EntryRecord) => ({
    tenant_id: tenantId,
    entry_id: v._id,
    version: v.version,
    action: v.version === 1 ? 'create' : 'update',
    changed_at: now,
    changed_by_user_id: audit.user_id || null,
    audit_source: 'system',
    client_id: audit.client_id || null,
    request_id: audit.request_id || null,
    snapshot: { ...v } as unknown as Record<string, unknown>,
  });

  if (!existing) {
    const doc: EntryRecord = {
      _id: randomUUID(),
      tenant_id: tenantId,
      title: 'Skill index',
      content,
      category_id: categoryId,
      visibility,
      type: 'skill_index',
      version: 1,
      language: skills[0]!.language,
      translation_group_id: randomUUID(),
      translation_of: null,
      source: 'system',
      source_reference: null,
      embedding_model: null,
      summary: `${items.length} skill${items.length === 1 ? '' : 's'}`,
      layer: null,
      tags: [],
      workspace_id: null,
      created_by_user_id: null,
      owner_key: null,
      metadata,
      search_keywords: [],
      similarity_text: null,
      project_ids: null,
      site_ids: [],
      expires_at: null,
      content_changed_at: now,
      indexed_version: 0,
      index_pending: true,
      created_at: now,
      updated_at: now,
    };
    await entries.insert(doc, session);
    await entries.addVersion(version(doc), session);
    return doc;
  }
  if (existing.content === content && existing.visibility === visibility && existing.category_id === categoryId &&
      JSON.stringify(existing.metadata) === JSON.stringify(metadata)) {
    return null;
  }
  const updated = await entries.updateIfVersion(
    tenantId,
    existing._id,
    existing.version,
    {
      content,
      metadata,
      visibility,
      category_id: categoryId,
      summary: `${items.length} skill${items.length === 1 ? '' : 's'}`,
      updated_at: new Date(Math.max(now.getTime(), existing.updated_at.getTime() + 1)),
      content_changed_at: now,
    },
    session,
  );
  if (updated) await entries.addVersion(version(updated), session);
  return updated;
}
