import { randomUUID } from 'node:crypto';
import { AppError, type Caller } from '@kb/platform';
import { DEFAULT_ENTRY_SOURCE, DEFAULT_ENTRY_TYPE, DEFAULT_LANGUAGE } from '@kb/rules';
import type { Entry } from '../types';
import { assertMayWriteType, expiryOf, normaliseMetadata } from '../entry-types';
import { assertMayNameWorkspace, assertMayWriteVisibility, ownerKey, readableBy, type Viewer } from '../visibility';
import { assertCategoryExists, viewerFor, type EntryContext } from './context';
import { field, languageTaken, parseMetadata, personalOffItsRoute, type EntryInput } from './input';
import { newEntryRecord, tombstoneOf, versionRecord } from './records';
import { indexed, writeUnit } from './write-unit';

/** A new entry's type: `knowledge` on the personal route and when none is sent. */
export function typeOfNew(input: EntryInput, personal: boolean): string {
  return personal ? DEFAULT_ENTRY_TYPE : (field(input, 'type') ?? DEFAULT_ENTRY_TYPE);
}

/** A new entry's visibility: required except for memories (internal); `personal` only on its own route. */
export function visibilityOfNew(input: EntryInput, personal: boolean, type: string): string {
  if (personal) return 'personal';
  const sent = field(input, 'visibility');
  if (sent === 'personal') throw personalOffItsRoute();
  if (sent == null && type !== 'memory')
    throw AppError.invalid([{ loc: ['body', 'visibility'], msg: 'Field required', type: 'missing' }]);
  return sent ?? 'internal';
}

interface Decided {
  type: string;
  visibility: string;
  workspaceId: string | null;
  categoryId: string;
  metadata: Record<string, unknown>;
  language: string;
  translation: { groupId: string; of: string | null };
}

/** The new entry: what was decided, the input's other fields with their defaults (a personal note takes fewer). */
export function entryFromInput(caller: Caller, input: EntryInput, personal: boolean, d: Decided, now: Date): Entry {
  return newEntryRecord(
    {
      tenant_id: caller.tenant_id,
      title: field(input, 'title') as string,
      content: field(input, 'content') as string,
      category_id: d.categoryId,
      visibility: d.visibility,
      type: d.type,
      language: d.language,
      translation_group_id: d.translation.groupId,
      translation_of: d.translation.of,
      source: field(input, 'source') ?? DEFAULT_ENTRY_SOURCE,
      source_reference: field(input, 'source_reference') ?? null,
      summary: field(input, 'summary') ?? null,
      layer: field(input, 'layer') ?? null,
      tags: field(input, 'tags') ?? [],
      workspace_id: d.workspaceId,
      created_by_user_id: caller.user_id || null,
      owner_key: ownerKey(caller),
      metadata: d.metadata,
      search_keywords: personal ? [] : (field(input, 'search_keywords') ?? []),
      similarity_text: personal ? null : (field(input, 'similarity_text') ?? null),
      project_ids: personal ? null : (field(input, 'project_ids') ?? null),
      expires_at: expiryOf(d.type, d.metadata),
    },
    now,
  );
}

/** A translation joins its source's group (the source must be readable; one entry per language); else a new group. */
async function translationPlace(
  ctx: EntryContext,
  v: Viewer,
  of: string | null | undefined,
  language: string,
): Promise<Decided['translation']> {
  if (!of) return { groupId: randomUUID(), of: null };
  const source = await ctx.entries.findReadable(v.caller.tenant_id, of, readableBy(v));
  if (!source) throw AppError.notFound('Translation source entry not found');
  if (await ctx.entries.translationLanguageTaken(v.caller.tenant_id, source.translation_group_id, language))
    throw languageTaken(language);
  return { groupId: source.translation_group_id, of: source.translation_of ?? source.id };
}

/** Checks the input in the order the API answers errors: type, visibility, workspace, category, metadata, translation. */
async function decide(ctx: EntryContext, v: Viewer, input: EntryInput, personal: boolean): Promise<Decided> {
  const type = typeOfNew(input, personal);
  assertMayWriteType(v, type);
  const visibility = visibilityOfNew(input, personal, type);
  const workspaceId = personal ? null : (field(input, 'workspace_id') ?? null);
  assertMayWriteVisibility(v, visibility, workspaceId);
  assertMayNameWorkspace(v, workspaceId);
  const categoryId = field(input, 'category_id') as string;
  await assertCategoryExists(ctx, v.caller.tenant_id, categoryId);
  const metadata = normaliseMetadata(type, parseMetadata(field(input, 'metadata_json')));
  const language = field(input, 'language') ?? DEFAULT_LANGUAGE;
  const translation = await translationPlace(ctx, v, personal ? null : field(input, 'translation_of'), language);
  return { type, visibility, workspaceId, categoryId, metadata, language, translation };
}

/** POST /knowledge-entries (and /personal): a new entry at version 1, indexed right away when the index answers in time. */
export async function createEntry(
  ctx: EntryContext,
  callerIn: Caller | null | undefined,
  input: EntryInput,
  personal: boolean,
): Promise<Entry> {
  const v = await viewerFor(ctx, callerIn, 'knowledge:write');
  const caller = v.caller;
  const decided = await decide(ctx, v, input, personal);
  const doc = entryFromInput(caller, input, personal, decided, new Date());
  const insert = () =>
    writeUnit(ctx, caller, doc.type === 'skill', async (tx) => {
      // The unique index decides a translation racing another one into the same language.
      if (!(await ctx.entries.insert(doc, tx))) throw languageTaken(decided.language);
      await ctx.entries.addVersion(versionRecord(doc, 'create', caller), tx);
      return doc;
    });
  // Under the category's claim: a concurrent delete of the category either sees this entry or wins first (404).
  const written = await ctx.inCategory.referring(caller.tenant_id, decided.categoryId, insert, (w) =>
    discard(ctx, w.result, caller),
  );
  return indexed(ctx, written.result, [written.index]);
}

/**
 * Undoes a create whose category was deleted while its claim was dropped (a stall longer than
 * the guard's TTL): removed as a delete would (tombstone for the index, skill index rebuilt).
 */
async function discard(ctx: EntryContext, e: Entry, caller: Caller): Promise<void> {
  const written = await writeUnit(ctx, caller, e.type === 'skill', async (tx) => {
    const gone = await ctx.entries.removeAnyVersion(caller.tenant_id, e.id, tx);
    const tombstone = gone ? tombstoneOf(gone) : null;
    if (tombstone) await ctx.entries.addTombstone(tombstone, tx);
    return tombstone;
  });
  if (written.result) await ctx.indexer.removeNow([written.result]);
  if (written.index) await ctx.indexer.indexNow([written.index]);
}
