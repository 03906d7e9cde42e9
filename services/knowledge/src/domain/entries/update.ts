import { AppError, type Caller } from '@kb/platform';
import type { Entry, EntryChanges } from '../types';
import { expiryOf, normaliseMetadata } from '../entry-types';
import { assertMayNameWorkspace, assertMayWriteVisibility, type Viewer } from '../visibility';
import { assertCategoryExists, viewerFor, type EntryContext } from './context';
import { changedMeanwhile, field, parseMetadata, personalOffItsRoute, type EntryInput } from './input';
import { loadForWrite } from './load';
import { nextUpdatedAt, versionRecord } from './records';
import { indexed, writeUnit } from './write-unit';

type Changes = EntryChanges;

/** Who may read the entry: `type` never changes, a personal note stays personal, the new visibility must be writable. */
export function accessChanges(v: Viewer, current: Entry, input: EntryInput): Changes {
  if (input.sent_fields.includes('type')) {
    throw AppError.invalid([
      { loc: ['body', 'type'], msg: 'The type of an entry cannot be changed', type: 'extra_forbidden' },
    ]);
  }
  const set: Changes = {};
  const visibility = field(input, 'visibility');
  // Both refusals depend on the entry, not on the body (personal is a valid visibility to send,
  // as a personal note's own): a conflict with its state, 409.
  if (visibility != null && visibility !== current.visibility) {
    if (visibility === 'personal') throw AppError.conflict(personalOffItsRoute().message);
    if (current.visibility === 'personal') throw AppError.conflict('A personal entry stays personal');
  }
  const workspaceId = field(input, 'workspace_id');
  if (workspaceId !== undefined) set.workspace_id = workspaceId;
  // A PUT naming only workspace_id moves the entry too: into the caller's own workspaces only.
  if (workspaceId !== undefined && workspaceId !== current.workspace_id) assertMayNameWorkspace(v, workspaceId);
  if (visibility != null) {
    assertMayWriteVisibility(v, visibility, set.workspace_id !== undefined ? set.workspace_id : current.workspace_id);
    set.visibility = visibility;
  }
  return set;
}

/**
 * The text and metadata: only sent fields change; null leaves title and content as they are,
 * clears the nullable ones and empties the lists; metadata is checked against the entry's type.
 */
export function contentChanges(current: Entry, input: EntryInput): Changes {
  const set: Changes = {};
  for (const name of ['title', 'content'] as const) {
    const value = field(input, name);
    if (value != null) set[name] = value;
  }
  for (const name of ['summary', 'layer', 'source_reference', 'similarity_text'] as const) {
    const value = field(input, name);
    if (value !== undefined) set[name] = value;
  }
  for (const name of ['tags', 'search_keywords'] as const) {
    const value = field(input, name);
    if (value !== undefined) set[name] = value ?? [];
  }
  const projects = field(input, 'project_ids');
  if (projects !== undefined) set.project_ids = projects;
  if (field(input, 'metadata_json') !== undefined) {
    set.metadata = metadataOfType(current.type, parseMetadata(field(input, 'metadata_json')));
    set.expires_at = expiryOf(current.type, set.metadata);
  }
  return set;
}

/** Every update is a new updated_at; content_changed_at moves only when title, summary or content changed (translations' `outdated`). */
export function stamped(current: Entry, set: Changes, now: number = Date.now()): Changes {
  const at = nextUpdatedAt(current.updated_at, now);
  const textChanged = (['title', 'summary', 'content'] as const).some((k) => k in set && set[k] !== current[k]);
  return { ...set, updated_at: at, ...(textChanged ? { content_changed_at: at } : {}) };
}

/** PUT /knowledge-entries/{id}: one new version with the sent fields, if nobody wrote in between (409) and If-Match holds (412). */
export async function updateEntry(
  ctx: EntryContext,
  callerIn: Caller | null | undefined,
  id: string,
  input: EntryInput,
  expectedVersion: number | undefined,
): Promise<Entry> {
  const v = await viewerFor(ctx, callerIn, 'knowledge:write');
  const caller = v.caller;
  const current = await loadForWrite(ctx, v, id, expectedVersion);
  const access = accessChanges(v, current, input);
  const categoryId = field(input, 'category_id');
  const moves = categoryId != null && categoryId !== current.category_id;
  if (moves) await assertCategoryExists(ctx, caller.tenant_id, categoryId);
  const set = stamped(current, {
    ...access,
    ...(moves ? { category_id: categoryId } : {}),
    ...contentChanges(current, input),
  });

  const write = () =>
    writeUnit(ctx, caller, current.type === 'skill', async (tx) => {
      const updated = await ctx.entries.updateIfVersion(caller.tenant_id, id, current.version, set, tx);
      if (!updated) throw changedMeanwhile();
      await ctx.entries.addVersion(versionRecord(updated, 'update', caller), tx);
      return updated;
    });
  // A move refers to the new category: under its claim, like a create.
  const written = moves
    ? await ctx.inCategory.referring(caller.tenant_id, categoryId, write, (w) =>
        moveBack(ctx, w.result, current.category_id, caller),
      )
    : await write();
  return indexed(ctx, written.result, [written.index]);
}

/**
 * Undoes a move whose category was deleted while its claim was dropped (a stall longer than the
 * guard's TTL): back into the category it came from, itself under that one's claim.
 */
async function moveBack(ctx: EntryContext, e: Entry, categoryId: string, caller: Caller): Promise<void> {
  const back = () =>
    writeUnit(ctx, caller, e.type === 'skill', async (tx) => {
      const moved = await ctx.entries.moveFromCategory(caller.tenant_id, e.id, e.category_id, categoryId, tx);
      if (moved) await ctx.entries.addVersion(versionRecord(moved, 'update', caller), tx);
      return moved;
    });
  // When the category it came from is gone as well, there is nowhere to put it back: the error is the answer.
  await ctx.inCategory.referring(caller.tenant_id, categoryId, back, async () => undefined);
}

/**
 * Metadata of an update, against the type the entry already has: a value its schema refuses is
 * a 409 (the request conflicts with the entry's state, its type), not a 422, since the body is
 * valid as such (the OpenAPI document cannot know the stored type); the message names each problem.
 */
function metadataOfType(type: string, raw: unknown): Record<string, unknown> {
  try {
    return normaliseMetadata(type, raw);
  } catch (err) {
    if (!(err instanceof AppError) || err.kind !== 'invalid') throw err;
    const problems = (err.issues ?? []).map((i) => `${i.loc.slice(2).join('.') || 'metadata'}: ${i.msg}`);
    throw AppError.conflict(`metadata does not fit the schema of this ${type} entry (${problems.join('; ')})`);
  }
}
