import { randomUUID } from 'node:crypto';
import type { ClientSession } from 'mongoose';
import { AppError, SEARCH_DEFAULT_LIMIT, type Caller, type MongoHandle, type knowledgeV1 } from '@kb/common';
import type { CategoriesRepo } from '../data-access/categories-repo';
import type { EntriesRepo, EntryRecord, EntryVersionRecord } from '../data-access/entries-repo';
import type { TenantsRepo } from '../data-access/tenants-repo';
import { callerWith, notFound } from './access';
import { categoryGuard } from './category-guard';
import { expiryOf, normaliseMetadata } from './entry-types';
import type { EntryIndexer } from './indexer';
import type { SimilarityClient } from '@kb/common';
import { effectiveSettings } from './tenant-settings';
import { rebuildSkillIndex } from './skill-index';
import { assertMayWriteVisibility, canSee, searchFilter, viewerOf, visibilityFilter, ownerKey, type Viewer } from './visibility';

export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 500;

type Input = knowledgeV1.EntryInput__Output;

/** A field of the input: undefined when not sent, null when sent as null. */
function field<K extends keyof Input>(input: Input, name: K): Input[K] | null | undefined {
  if (!input.sent_fields.includes(name as string)) return undefined;
  const value = input[name];
  return value === undefined ? null : value;
}

function parseMetadata(json: string | null | undefined): unknown {
  if (json === null || json === undefined || json === '') return undefined;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    throw AppError.invalid([{ loc: ['body', 'metadata'], msg: 'Input should be a valid dictionary', type: 'dict_type' }]);
  }
}

const PERSONAL_ROUTE = 'POST /api/knowledge/knowledge-entries/personal';

export function encodeCursor(e: { updated_at: Date; _id: string }): string {
  return Buffer.from(JSON.stringify([e.updated_at.toISOString(), e._id])).toString('base64url');
}

function decodeCursor(cursor: string): { updatedAt: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    const updatedAt = new Date(at);
    if (typeof id !== 'string' || Number.isNaN(updatedAt.getTime())) throw new Error('bad cursor');
    return { updatedAt, id };
  } catch {
    throw AppError.invalid([{ loc: ['query', 'cursor'], msg: 'Invalid cursor', type: 'value_error' }]);
  }
}

/** The fields of a stored state that decide who may read it; a state without a visibility counts as restricted. */
function snapshotAccess(h: EntryVersionRecord): { visibility: string; owner_key: string | null; workspace_id: string | null } {
  const s = h.snapshot as { visibility?: string; owner_key?: string | null; workspace_id?: string | null };
  return { visibility: s.visibility ?? 'restricted', owner_key: s.owner_key ?? null, workspace_id: s.workspace_id ?? null };
}

export interface EntryDeps {
  entries: EntriesRepo;
  categories: CategoriesRepo;
  tenants: TenantsRepo;
  mongo: MongoHandle;
  indexer: EntryIndexer;
  similarity: SimilarityClient;
}

export function entryUseCases(deps: EntryDeps) {
  const { entries, categories, tenants, mongo, indexer } = deps;
  const inCategory = categoryGuard(categories);

  // Skill-index rebuilds of one tenant run one after another in this process, so a rebuild
  // never overwrites a newer one with an older read.
  const skillLocks = new Map<string, Promise<unknown>>();
  const serialised = <T>(tenantId: string, fn: () => Promise<T>): Promise<T> => {
    const prev = skillLocks.get(tenantId) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    skillLocks.set(tenantId, next.catch(() => undefined));
    return next;
  };

  async function viewer(callerIn: Caller | null | undefined, scope: 'knowledge:read' | 'knowledge:write'): Promise<Viewer> {
    const caller = callerWith(callerIn, scope);
    const tenant = await tenants.findById(caller.tenant_id);
    return viewerOf(caller, effectiveSettings(tenant?.settings));
  }

  async function writableTypes(caller: Caller): Promise<string[]> {
    const tenant = await tenants.findById(caller.tenant_id);
    return effectiveSettings(tenant?.settings).role_writable_types[caller.role] ?? [];
  }

  async function assertMayWriteType(caller: Caller, type: string): Promise<void> {
    if (type === 'skill_index') throw AppError.forbidden('skill_index entries are maintained by the system and cannot be written');
    if (!(await writableTypes(caller)).includes(type)) throw AppError.forbidden(`Role ${caller.role} may not write ${type} entries`);
  }

  async function assertCategory(tenantId: string, categoryId: string): Promise<void> {
    if (!(await categories.findById(tenantId, categoryId))) throw notFound('Category');
  }

  /**
   * Runs a write and, for skills, the skill-index rebuild: in one transaction where MongoDB
   * supports them, else the rebuild runs right after the write (it is recomputed from all
   * skills, so it cannot drift).
   */
  async function writeUnit<T>(tenantId: string, touchesSkills: boolean, write: (session?: ClientSession) => Promise<T>, caller: Caller): Promise<{ result: T; index: EntryRecord | null }> {
    const run = async () => {
      if (await mongo.supportsTransactions()) {
        let out: { result: T; index: EntryRecord | null } | undefined;
        await mongo.connection.transaction(async (session) => {
          const result = await write(session);
          const index = touchesSkills ? await rebuildSkillIndex(entries, tenantId, caller, session) : null;
          out = { result, index };
        });
        return out as { result: T; index: EntryRecord | null };
      }
      const result = await write();
      const index = touchesSkills ? await rebuildSkillIndex(entries, tenantId, caller) : null;
      return { result, index };
    };
    return touchesSkills ? serialised(tenantId, run) : run();
  }

  function versionRecord(e: EntryRecord, action: string, caller: Caller): Omit<EntryVersionRecord, '_id'> {
    return {
      tenant_id: e.tenant_id,
      entry_id: e._id,
      version: e.version,
      action,
      changed_at: e.updated_at,
      changed_by_user_id: caller.user_id || null,
      audit_source: caller.audit_source || 'api',
      client_id: caller.client_id || null,
      request_id: caller.request_id || null,
      snapshot: { ...e } as unknown as Record<string, unknown>,
    };
  }

  /*
   * Undoing a write whose category was deleted while its claim was dropped (a stall longer than
   * the guard's TTL; @kb/common parent-guard.ts): the entry must not stay in a deleted category.
   */

  /** Removes a new entry as a delete would (tombstone for the index, skill index rebuilt). */
  async function discard(e: EntryRecord, caller: Caller): Promise<void> {
    const written = await writeUnit(
      caller.tenant_id,
      e.type === 'skill',
      async (session) => {
        const gone = await entries.removeAnyVersion(caller.tenant_id, e._id, session);
        const tombstone = gone ? { _id: e._id, tenant_id: caller.tenant_id, version: gone.version + 1, deleted_at: new Date() } : null;
        if (tombstone) await entries.addTombstone(tombstone, session);
        return tombstone;
      },
      caller,
    );
    if (written.result) await indexer.removeNow([written.result]);
    if (written.index) await indexer.indexNow([written.index]);
  }

  /** Moves an entry back from a deleted category into the one it came from (itself under that one's claim). */
  async function moveBack(e: EntryRecord, categoryId: string, caller: Caller): Promise<void> {
    const back = () =>
      writeUnit(
        caller.tenant_id,
        e.type === 'skill',
        async (session) => {
          const moved = await entries.moveFromCategory(caller.tenant_id, e._id, e.category_id, categoryId, session);
          if (moved) await entries.addVersion(versionRecord(moved, 'update', caller), session);
          return moved;
        },
        caller,
      );
    // When the category it came from is gone as well, there is nowhere to put it back: the error is the answer.
    await inCategory.referring(caller.tenant_id, categoryId, back, async () => undefined);
  }

  /** Index right away (bounded); the entry answered carries the model when that worked. */
  async function indexed(e: EntryRecord, also: (EntryRecord | null)[] = []): Promise<EntryRecord> {
    const models = await indexer.indexNow([e, ...also.filter((x): x is EntryRecord => x !== null)]);
    const model = models.get(e._id);
    return model ? { ...e, embedding_model: model, indexed_version: e.version, index_pending: false } : e;
  }

  async function loadVisible(v: Viewer, id: string): Promise<EntryRecord> {
    const entry = await entries.findById(v.caller.tenant_id, id, visibilityFilter(v));
    if (!entry) throw notFound('Entry');
    return entry;
  }

  /** The entry a write targets: visible, of a type the caller may write, at the If-Match version. */
  async function loadForWrite(v: Viewer, id: string, expectedVersion: number | undefined): Promise<EntryRecord> {
    const current = await loadVisible(v, id);
    await assertMayWriteType(v.caller, current.type);
    if (expectedVersion !== undefined && expectedVersion !== current.version) {
      throw new AppError('precondition_failed', `If-Match does not match the entry's current version ${current.version}`);
    }
    return current;
  }

  return {
    async create(callerIn: Caller | null | undefined, input: Input, personal: boolean): Promise<EntryRecord> {
      const v = await viewer(callerIn, 'knowledge:write');
      const caller = v.caller;
      const type = personal ? 'knowledge' : (field(input, 'type') ?? 'knowledge');
      await assertMayWriteType(caller, type);

      let visibility: string;
      if (personal) visibility = 'personal';
      else {
        const sent = field(input, 'visibility');
        if (sent === 'personal') {
          throw AppError.invalid([{ loc: ['body', 'visibility'], msg: `Personal entries can only be created through ${PERSONAL_ROUTE}`, type: 'value_error' }]);
        }
        if (sent == null && type !== 'memory') throw AppError.invalid([{ loc: ['body', 'visibility'], msg: 'Field required', type: 'missing' }]);
        visibility = sent ?? 'internal';
      }
      const workspaceId = personal ? null : (field(input, 'workspace_id') ?? null);
      assertMayWriteVisibility(v, visibility, workspaceId);

      const categoryId = field(input, 'category_id') as string;
      await assertCategory(caller.tenant_id, categoryId);
      const metadata = normaliseMetadata(type, parseMetadata(field(input, 'metadata_json')));
      const language = field(input, 'language') ?? 'de';

      let translationGroupId: string = randomUUID();
      let translationOf: string | null = null;
      const of = personal ? null : field(input, 'translation_of');
      if (of) {
        const source = await entries.findById(caller.tenant_id, of, visibilityFilter(v));
        if (!source) throw AppError.notFound('Translation source entry not found');
        translationGroupId = source.translation_group_id;
        translationOf = source.translation_of ?? source._id;
        const group = await entries.translationGroup(caller.tenant_id, translationGroupId);
        if (group.some((m) => m.language === language)) {
          throw AppError.conflict(`The translation group already has an entry in language "${language}"`);
        }
      }

      const now = new Date();
      const doc: EntryRecord = {
        _id: randomUUID(),
        tenant_id: caller.tenant_id,
        title: field(input, 'title') as string,
        content: field(input, 'content') as string,
        category_id: categoryId,
        visibility,
        type,
        version: 1,
        language,
        translation_group_id: translationGroupId,
        translation_of: translationOf,
        source: field(input, 'source') ?? 'manual',
        source_reference: field(input, 'source_reference') ?? null,
        embedding_model: null,
        summary: field(input, 'summary') ?? null,
        layer: field(input, 'layer') ?? null,
        tags: field(input, 'tags') ?? [],
        workspace_id: workspaceId,
        created_by_user_id: caller.user_id || null,
        owner_key: ownerKey(caller),
        metadata,
        search_keywords: personal ? [] : (field(input, 'search_keywords') ?? []),
        similarity_text: personal ? null : (field(input, 'similarity_text') ?? null),
        project_ids: personal ? null : (field(input, 'project_ids') ?? null),
        site_ids: [],
        expires_at: expiryOf(type, metadata),
        content_changed_at: now,
        indexed_version: 0,
        index_pending: true,
        created_at: now,
        updated_at: now,
      };
      const insert = async () => {
        try {
          return await writeUnit(
            caller.tenant_id,
            type === 'skill',
            async (session) => {
              await entries.insert(doc, session);
              await entries.addVersion(versionRecord(doc, 'create', caller), session);
              return doc;
            },
            caller,
          );
        } catch (err) {
          if ((err as { code?: number }).code === 11000) {
            throw AppError.conflict(`The translation group already has an entry in language "${language}"`);
          }
          throw err;
        }
      };
      // Under the category's claim: a concurrent delete of the category either sees this entry or wins first (404).
      const written = await inCategory.referring(caller.tenant_id, categoryId, insert, (w) => discard(w.result, caller));
      return indexed(written.result, [written.index]);
    },

    async update(callerIn: Caller | null | undefined, id: string, input: Input, expectedVersion: number | undefined): Promise<EntryRecord> {
      const v = await viewer(callerIn, 'knowledge:write');
      const caller = v.caller;
      const current = await loadForWrite(v, id, expectedVersion);
      if (input.sent_fields.includes('type')) {
        throw AppError.invalid([{ loc: ['body', 'type'], msg: 'The type of an entry cannot be changed', type: 'extra_forbidden' }]);
      }

      const set: Partial<EntryRecord> = {};
      const sentVisibility = field(input, 'visibility');
      if (sentVisibility != null && sentVisibility !== current.visibility) {
        if (sentVisibility === 'personal') {
          throw AppError.invalid([{ loc: ['body', 'visibility'], msg: `Personal entries can only be created through ${PERSONAL_ROUTE}`, type: 'value_error' }]);
        }
        if (current.visibility === 'personal') {
          throw AppError.invalid([{ loc: ['body', 'visibility'], msg: 'A personal entry stays personal', type: 'value_error' }]);
        }
      }
      const workspaceId = field(input, 'workspace_id');
      if (workspaceId !== undefined) set.workspace_id = workspaceId;
      if (sentVisibility != null) {
        assertMayWriteVisibility(v, sentVisibility, set.workspace_id !== undefined ? set.workspace_id : current.workspace_id);
        set.visibility = sentVisibility;
      }
      const categoryId = field(input, 'category_id');
      if (categoryId != null && categoryId !== current.category_id) {
        await assertCategory(caller.tenant_id, categoryId);
        set.category_id = categoryId;
      }
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
        set.metadata = normaliseMetadata(current.type, parseMetadata(field(input, 'metadata_json')));
        set.expires_at = expiryOf(current.type, set.metadata);
      }
      const now = new Date(Math.max(Date.now(), current.updated_at.getTime() + 1));
      set.updated_at = now;
      if (['title', 'summary', 'content'].some((k) => k in set && (set as Record<string, unknown>)[k] !== (current as unknown as Record<string, unknown>)[k])) {
        set.content_changed_at = now;
      }

      const write = () =>
        writeUnit(
          caller.tenant_id,
          current.type === 'skill',
          async (session) => {
            const updated = await entries.updateIfVersion(caller.tenant_id, id, current.version, set, session);
            if (!updated) throw AppError.conflict('The entry was changed by another request; read it again and retry');
            await entries.addVersion(versionRecord(updated, 'update', caller), session);
            return updated;
          },
          caller,
        );
      // A move refers to the new category: under its claim, like a create.
      const written =
        set.category_id === undefined
          ? await write()
          : await inCategory.referring(caller.tenant_id, set.category_id, write, (w) => moveBack(w.result, current.category_id, caller));
      return indexed(written.result, [written.index]);
    },

    async get(callerIn: Caller | null | undefined, id: string): Promise<EntryRecord> {
      return loadVisible(await viewer(callerIn, 'knowledge:read'), id);
    },

    async remove(callerIn: Caller | null | undefined, id: string, expectedVersion: number | undefined): Promise<void> {
      const v = await viewer(callerIn, 'knowledge:write');
      const caller = v.caller;
      const current = await loadForWrite(v, id, expectedVersion);
      const tombstone = { _id: id, tenant_id: caller.tenant_id, version: current.version + 1, deleted_at: new Date() };
      const written = await writeUnit(
        caller.tenant_id,
        current.type === 'skill',
        async (session) => {
          if (!(await entries.deleteIfVersion(caller.tenant_id, id, current.version, session))) {
            throw AppError.conflict('The entry was changed by another request; read it again and retry');
          }
          await entries.addTombstone(tombstone, session);
          return true;
        },
        caller,
      );
      await indexer.removeNow([tombstone]);
      if (written.index) await indexer.indexNow([written.index]);
    },

    async list(callerIn: Caller | null | undefined, req: knowledgeV1.ListEntriesRequest__Output): Promise<{ entries: EntryRecord[]; nextCursor?: string }> {
      const v = await viewer(callerIn, 'knowledge:read');
      const and: Record<string, unknown>[] = [visibilityFilter(v)];
      if (req.category_id) and.push({ category_id: req.category_id });
      if (req.type) and.push({ type: req.type });
      if (req.project_id) and.push({ project_ids: req.project_id });
      if (req.visibility) and.push({ visibility: req.visibility });
      if (req.layer !== undefined && req.layer !== null) and.push({ layer: req.layer });
      if (!req.include_expired) and.push({ $or: [{ expires_at: null }, { expires_at: { $gt: new Date() } }] });
      const limit = req.limit > 0 ? Math.min(req.limit, MAX_PAGE) : DEFAULT_PAGE;
      const page = await entries.list(v.caller.tenant_id, {
        filter: { $and: and },
        ...(req.cursor ? { after: decodeCursor(req.cursor) } : {}),
        limit: limit + 1,
      });
      const more = page.length > limit;
      const shown = page.slice(0, limit);
      const last = shown[shown.length - 1];
      return { entries: shown, ...(more && last ? { nextCursor: encodeCursor(last) } : {}) };
    },

    /**
     * The entry's history, oldest first. Each state is checked like a current entry: a state
     * the caller could not have read (above the ceiling, another's personal note, a workspace
     * it is not in) is left out as if absent, so lowering an entry's visibility never shows
     * what it said while it was hidden.
     */
    async versions(callerIn: Caller | null | undefined, id: string): Promise<EntryVersionRecord[]> {
      const v = await viewer(callerIn, 'knowledge:read');
      await loadVisible(v, id);
      const history = await entries.versions(v.caller.tenant_id, id);
      return history.filter((h) => canSee(v, snapshotAccess(h)));
    },

    /** The translation group of an entry, with whether each translation is behind its source. */
    async translations(callerIn: Caller | null | undefined, id: string): Promise<{ groupId: string; members: { entry: EntryRecord; isSource: boolean; outdated: boolean }[] }> {
      const v = await viewer(callerIn, 'knowledge:read');
      const entry = await loadVisible(v, id);
      const group = await entries.translationGroup(v.caller.tenant_id, entry.translation_group_id);
      const source = group.find((m) => m.translation_of === null) ?? null;
      return {
        groupId: entry.translation_group_id,
        members: group
          .filter((m) => canSee(v, m))
          .map((m) => ({
            entry: m,
            isSource: m === source,
            outdated: source !== null && m !== source && source.content_changed_at.getTime() > m.content_changed_at.getTime(),
          })),
      };
    },

    async search(callerIn: Caller | null | undefined, req: knowledgeV1.SearchEntriesRequest__Output) {
      const v = await viewer(callerIn, 'knowledge:read');
      const limit = req.limit > 0 ? req.limit : SEARCH_DEFAULT_LIMIT;
      const res = await deps.similarity.call('SearchEntries', {
        caller: v.caller,
        query: req.query,
        limit,
        visibility: searchFilter(v),
        types: req.types,
        ...(req.category_id ? { category_id: req.category_id } : {}),
        ...(req.language ? { language: req.language } : {}),
      });
      const ids = res.hits.map((h) => h.id);
      // The index may be stale: load the hits from MongoDB and check them again.
      const loaded = await entries.findMany(v.caller.tenant_id, ids, visibilityFilter(v));
      const byId = new Map(loaded.filter((e) => canSee(v, e)).map((e) => [e._id, e]));
      return res.hits
        .filter((h) => byId.has(h.id))
        .filter((h) => req.types.length === 0 || req.types.includes(byId.get(h.id)!.type))
        .filter((h) => !req.category_id || byId.get(h.id)!.category_id === req.category_id)
        .filter((h) => !req.language || byId.get(h.id)!.language === req.language)
        .filter((h) => { const e = byId.get(h.id)!; return !e.expires_at || e.expires_at.getTime() > Date.now(); })
        .map((h) => ({ entry: byId.get(h.id)!, score: h.score, score_sources: h.score_sources }));
    },

    /** Records the site on the entries the caller can see; the others count as not found. */
    async assignSite(callerIn: Caller | null | undefined, siteId: string, ids: string[]) {
      const v = await viewer(callerIn, 'knowledge:write');
      const unique = [...new Set(ids)];
      const visible = new Map((await entries.findMany(v.caller.tenant_id, unique, visibilityFilter(v))).map((e) => [e._id, e]));
      let assigned = 0;
      let already = 0;
      const notFoundIds: string[] = [];
      for (const id of unique) {
        if (!visible.has(id)) {
          notFoundIds.push(id);
          continue;
        }
        if (await entries.addSite(v.caller.tenant_id, id, siteId)) assigned += 1;
        else already += 1;
      }
      return { site_id: siteId, assigned, already_assigned: already, not_found: notFoundIds };
    },
  };
}
export type EntryUseCases = ReturnType<typeof entryUseCases>;
