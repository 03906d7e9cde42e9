import { randomUUID } from 'node:crypto';
import type { IndexBacklog } from '@kb/platform';
import {
  findOfTenantByIds,
  indexedFilter,
  mongoLeases,
  mongoQueueClaims,
  type LeaseDoc,
  onDuplicateKey,
  readIndexBacklog,
  REFUSED,
  refusedFilter,
  unclaimed,
  withId,
  withMongoId,
  byIdQuery,
  indexBacklogQueries,
  leaseQueries,
  queueClaimQueries,
  type QueryShape,
} from '@kb/mongo';
import type { Entry, EntryChanges, EntryTombstone, EntryVersion } from '../domain/types';
import type { EntryDoc, EntryTombstoneDoc, EntryVersionDoc, KnowledgeModels } from './models';
import { sessionOf as opts, type Transaction } from './transactions';

/**
 * Whom a read is for: the plain visibilities they may read, their personal entries (owner key),
 * and their workspaces' entries (null when workspaces are off: then `workspace` is a plain level).
 */
export interface ReadableBy {
  visibilities: string[];
  ownerKey: string;
  workspaceIds: string[] | null;
}

export interface ListQuery {
  readableBy: ReadableBy;
  category_id?: string;
  type?: string;
  project_id?: string;
  visibility?: string;
  layer?: string;
  /** False leaves out memories whose expires_at has passed. */
  includeExpired: boolean;
  /** Keyset position: entries strictly after (updated_at desc, id asc). */
  after?: { updatedAt: Date; id: string };
  limit: number;
}

/**
 * Documents per batch of a streamed read: an entry may hold ~1 MiB, so ~10 MiB a batch at most
 * (a page of the 8 MiB budget is about one batch).
 */
const STREAM_BATCH = 10;

const entryOf = (d: EntryDoc): Entry => withId(d);
const entryOrNull = (d: EntryDoc | null): Entry | null => (d ? entryOf(d) : null);
const entriesOf = (docs: EntryDoc[]): Entry[] => docs.map(entryOf);

/** A stored state as the domain reads it: the entry's `_id` as `id`, like the entry itself. */
function snapshotOf(snapshot: Record<string, unknown>): Record<string, unknown> {
  return '_id' in snapshot ? withId(snapshot as { _id: string }) : snapshot;
}
const snapshotDoc = (snapshot: Record<string, unknown>): Record<string, unknown> =>
  'id' in snapshot ? withMongoId(snapshot as { id: string }) : snapshot;
const versionOf = (d: EntryVersionDoc): EntryVersion => ({ ...withId(d), snapshot: snapshotOf(d.snapshot) });

function readableFilter(by: ReadableBy): Record<string, unknown> {
  const or: Record<string, unknown>[] = [
    { visibility: { $in: by.visibilities } },
    { visibility: 'personal', owner_key: by.ownerKey },
  ];
  if (by.workspaceIds) or.push({ visibility: 'workspace', workspace_id: { $in: by.workspaceIds } });
  return { $or: or };
}

function listFilter(q: ListQuery): Record<string, unknown>[] {
  const and: Record<string, unknown>[] = [readableFilter(q.readableBy)];
  if (q.category_id) and.push({ category_id: q.category_id });
  if (q.type) and.push({ type: q.type });
  if (q.project_id) and.push({ project_ids: q.project_id });
  if (q.visibility) and.push({ visibility: q.visibility });
  if (q.layer !== undefined) and.push({ layer: q.layer });
  if (!q.includeExpired) and.push({ $or: [{ expires_at: null }, { expires_at: { $gt: new Date() } }] });
  if (q.after)
    and.push(
      // The range bounds the index scan (a later page starts where the last one ended); the $or settles ties.
      { updated_at: { $lte: q.after.updatedAt } },
      {
        $or: [{ updated_at: { $lt: q.after.updatedAt } }, { updated_at: q.after.updatedAt, _id: { $gt: q.after.id } }],
      },
    );
  return and;
}

// One factory over the three entry collections rather than a file per query: each method is one
// query, and the indexer and the admin CLI take the repository whole.
/** An entry's version and readers, and whether the search index holds exactly that version. */
export interface EntryIndexState {
  id: string;
  version: number;
  indexed: boolean;
  visibility: string;
  owner_key: string | null;
  workspace_id: string | null;
  expires_at: Date | null;
}

export function entriesRepo(models: KnowledgeModels) {
  const { Entry: EntryModel, EntryVersion: EntryVersionModel, EntryTombstone: EntryTombstoneModel } = models;
  return {
    /**
     * Null when a unique index refused it: the only one a new entry can meet is one language per
     * translation group, so its group already has an entry in its language.
     */
    async insert(entry: Entry, tx?: Transaction): Promise<Entry | null> {
      const write = async () => {
        await EntryModel.create([withMongoId(entry)], opts(tx));
        return entry;
      };
      return onDuplicateKey(write, () => null);
    },

    /** The entry, when the reader may read it. */
    async findReadable(tenantId: string, id: string, by: ReadableBy): Promise<Entry | null> {
      return entryOrNull(
        await EntryModel.findOne({ ...readableFilter(by), tenant_id: tenantId, _id: id }).lean<EntryDoc>(),
      );
    },

    /**
     * The tenant's entries by id (any order), whoever may read them: for callers that check each
     * one (search hits go through stillMatching's canSee). Read by `_id` alone, which the local
     * MongoDB-compatible server answers from its index (see findOfTenantByIds).
     */
    findManyOfTenant: async (tenantId: string, ids: string[]): Promise<Entry[]> =>
      entriesOf(await findOfTenantByIds<EntryDoc>(EntryModel.collection, tenantId, ids)),

    /**
     * The named entries' versions and who may read them, each with whether the search index holds
     * exactly that version (indexed, nothing pending): what the gateway's read path checks its
     * hits against. No content.
     */
    async indexStates(tenantId: string, ids: string[]): Promise<EntryIndexState[]> {
      type Doc = Pick<
        EntryDoc,
        | '_id'
        | 'tenant_id'
        | 'version'
        | 'indexed_version'
        | 'index_pending'
        | 'visibility'
        | 'owner_key'
        | 'workspace_id'
        | 'expires_at'
      >;
      const docs = await findOfTenantByIds<Doc>(EntryModel.collection, tenantId, ids, {
        version: 1,
        indexed_version: 1,
        index_pending: 1,
        visibility: 1,
        owner_key: 1,
        workspace_id: 1,
        expires_at: 1,
      });
      return docs.map((d) => ({
        id: d._id,
        version: d.version,
        indexed: !d.index_pending && d.indexed_version === d.version,
        visibility: d.visibility,
        owner_key: d.owner_key ?? null,
        workspace_id: d.workspace_id ?? null,
        expires_at: d.expires_at ?? null,
      }));
    },

    /** Those of the entries the reader may read (any order). */
    async findManyReadable(tenantId: string, ids: string[], by: ReadableBy): Promise<Entry[]> {
      return entriesOf(
        await EntryModel.find({ ...readableFilter(by), tenant_id: tenantId, _id: { $in: ids } }).lean<EntryDoc[]>(),
      );
    },

    /**
     * The optimistic-concurrency write: applies `set` only when the stored version is still
     * `expectedVersion`, and bumps it. Null when another write got there first (or it is gone).
     */
    async updateIfVersion(
      tenantId: string,
      id: string,
      expectedVersion: number,
      set: EntryChanges,
      tx?: Transaction,
    ): Promise<Entry | null> {
      return entryOrNull(
        await EntryModel.findOneAndUpdate(
          { tenant_id: tenantId, _id: id, version: expectedVersion },
          { $set: { ...set, version: expectedVersion + 1, index_pending: true }, $inc: { index_seq: 1 } },
          { returnDocument: 'after', ...opts(tx) },
        ).lean<EntryDoc>(),
      );
    },

    /** Deletes the entry whatever its version; returns what was deleted. */
    async removeAnyVersion(tenantId: string, id: string, tx?: Transaction): Promise<Entry | null> {
      return entryOrNull(
        await EntryModel.findOneAndDelete({ tenant_id: tenantId, _id: id }, opts(tx)).lean<EntryDoc>(),
      );
    },

    /** Moves the entry to another category while it is still in `from` (a new version); null when it is not. */
    async moveFromCategory(
      tenantId: string,
      id: string,
      from: string,
      to: string,
      tx?: Transaction,
    ): Promise<Entry | null> {
      return entryOrNull(
        await EntryModel.findOneAndUpdate(
          { tenant_id: tenantId, _id: id, category_id: from },
          {
            $set: { category_id: to, updated_at: new Date(), index_pending: true },
            $inc: { version: 1, index_seq: 1 },
          },
          { returnDocument: 'after', ...opts(tx) },
        ).lean<EntryDoc>(),
      );
    },

    async deleteIfVersion(tenantId: string, id: string, expectedVersion: number, tx?: Transaction): Promise<boolean> {
      const res = await EntryModel.deleteOne({ tenant_id: tenantId, _id: id, version: expectedVersion }, opts(tx));
      return res.deletedCount === 1;
    },

    /**
     * The entries matching the query, newest change first, read a batch at a time: the caller
     * stops when its answer is full (by count or by bytes), so at most a batch more than the
     * answer is ever in memory, however large the entries.
     */
    async *listStream(tenantId: string, q: ListQuery): AsyncGenerator<Entry> {
      const cursor = EntryModel.find({ tenant_id: tenantId, $and: listFilter(q) })
        .sort({ updated_at: -1, _id: 1 })
        .limit(q.limit)
        .batchSize(Math.min(q.limit, STREAM_BATCH))
        .lean<EntryDoc[]>()
        .cursor();
      for await (const d of cursor) yield entryOf(d as EntryDoc);
    },

    async countInCategory(tenantId: string, categoryId: string): Promise<number> {
      return EntryModel.countDocuments({ tenant_id: tenantId, category_id: categoryId, type: { $ne: 'skill_index' } });
    },

    /** Oldest first. */
    async ofType(tenantId: string, type: string, tx?: Transaction): Promise<Entry[]> {
      return entriesOf(
        await EntryModel.find({ tenant_id: tenantId, type }, null, opts(tx))
          .sort({ created_at: 1, _id: 1 })
          .lean<EntryDoc[]>(),
      );
    },

    /** Whether the group already has an entry in this language (read without loading the group's entries). */
    async translationLanguageTaken(tenantId: string, groupId: string, language: string): Promise<boolean> {
      return (await EntryModel.exists({ tenant_id: tenantId, translation_group_id: groupId, language })) !== null;
    },

    /** The group's source (the member that is no one's translation): its id and when its text last changed. */
    async translationSource(
      tenantId: string,
      groupId: string,
    ): Promise<Pick<Entry, 'id' | 'content_changed_at'> | null> {
      const d = await EntryModel.findOne(
        { tenant_id: tenantId, translation_group_id: groupId, translation_of: null },
        { _id: 1, content_changed_at: 1 },
      ).lean<{ _id: string; content_changed_at: Date }>();
      return d ? { id: d._id, content_changed_at: d.content_changed_at } : null;
    },

    /** The group's members after a place in its order (created_at, then id), at most `limit`, read a batch at a time. */
    async *translationGroupStream(
      tenantId: string,
      groupId: string,
      after: { createdAt: Date; id: string } | null,
      limit: number,
    ): AsyncGenerator<Entry> {
      const cursor = EntryModel.find({
        tenant_id: tenantId,
        translation_group_id: groupId,
        ...(after
          ? { $or: [{ created_at: { $gt: after.createdAt } }, { created_at: after.createdAt, _id: { $gt: after.id } }] }
          : {}),
      })
        .sort({ created_at: 1, _id: 1 })
        .limit(limit)
        .batchSize(Math.min(limit, STREAM_BATCH))
        .lean<EntryDoc[]>()
        .cursor();
      for await (const d of cursor) yield entryOf(d as EntryDoc);
    },

    /**
     * Records a deleted site (idempotent): from then on `siteDeleted` says so, and an
     * assignment that read "not deleted" wrote before this, so the sweep after it sees it.
     */
    async markSiteDeleted(tenantId: string, siteId: string, now: Date): Promise<void> {
      // Two deletes of one site at once: the other one inserted it.
      await onDuplicateKey(
        () =>
          models.DeletedSite.updateOne(
            { tenant_id: tenantId, _id: siteId },
            { $setOnInsert: { deleted_at: now } },
            { upsert: true },
          ),
        () => undefined,
      );
    },
    async siteDeleted(tenantId: string, siteId: string): Promise<boolean> {
      return (await models.DeletedSite.exists({ tenant_id: tenantId, _id: siteId })) !== null;
    },
    /** Takes a site off every entry of the tenant (queued for the index); how many changed. */
    async removeSite(tenantId: string, siteId: string): Promise<number> {
      const res = await EntryModel.updateMany(
        { tenant_id: tenantId, site_ids: siteId },
        { $pull: { site_ids: siteId }, $set: { index_pending: true }, $inc: { index_seq: 1 } },
      );
      return res.modifiedCount;
    },

    /** Records a site on an entry; true when its site list changed. */
    async addSite(tenantId: string, id: string, siteId: string): Promise<boolean> {
      const res = await EntryModel.updateOne(
        { tenant_id: tenantId, _id: id, site_ids: { $ne: siteId } },
        // Queued for the index (the site filter of entry search reads site_ids there); the
        // version stays: an assignment is not an edit of the entry.
        { $addToSet: { site_ids: siteId }, $set: { index_pending: true }, $inc: { index_seq: 1 } },
      );
      return res.modifiedCount === 1;
    },

    async addVersion(v: Omit<EntryVersion, 'id'>, tx?: Transaction): Promise<void> {
      await EntryVersionModel.create([{ _id: randomUUID(), ...v, snapshot: snapshotDoc(v.snapshot) }], opts(tx));
    },

    /** The stored states of an entry after `afterVersion`, oldest first, at most `limit`, read a batch at a time (as listStream). */
    async *versionsStream(
      tenantId: string,
      entryId: string,
      afterVersion: number,
      limit: number,
    ): AsyncGenerator<EntryVersion> {
      const cursor = EntryVersionModel.find({ tenant_id: tenantId, entry_id: entryId, version: { $gt: afterVersion } })
        .sort({ version: 1 })
        .limit(limit)
        .batchSize(Math.min(limit, STREAM_BATCH))
        .lean<EntryVersionDoc[]>()
        .cursor();
      for await (const d of cursor) yield versionOf(d as EntryVersionDoc);
    },

    async addTombstone(t: EntryTombstone, tx?: Transaction): Promise<void> {
      await EntryTombstoneModel.replaceOne({ tenant_id: t.tenant_id, _id: t.id }, withMongoId(t), {
        upsert: true,
        ...opts(tx),
      });
    },

    // ---- the background indexer (across tenants, so it reads the raw collections) ----

    async pendingEntries(limit: number, writtenBefore?: Date): Promise<Entry[]> {
      const written = writtenBefore ? { updated_at: { $lt: writtenBefore } } : {};
      return entriesOf(
        (await EntryModel.collection
          .find({ index_pending: true, ...written, ...unclaimed(new Date()) })
          .limit(limit)
          .toArray()) as unknown as EntryDoc[],
      );
    },
    async pendingTombstones(limit: number): Promise<EntryTombstone[]> {
      const docs = (await EntryTombstoneModel.collection
        .find(unclaimed(new Date()))
        // Oldest first, read along the deleted_at index: the first `limit` unclaimed ones, never the whole collection.
        .sort({ deleted_at: 1 })
        .limit(limit)
        .toArray()) as unknown as EntryTombstoneDoc[];
      return docs.map((d) => withId(d));
    },
    /** Every entry of every tenant, in id order, a page at a time (a reindex). */
    async allAfter(afterId: string, limit: number): Promise<Entry[]> {
      return entriesOf(
        (await EntryModel.collection
          .find({ _id: { $gt: afterId } } as never)
          .sort({ _id: 1 })
          .limit(limit)
          .toArray()) as unknown as EntryDoc[],
      );
    },
    /** Queues entries written since `since` for the background indexer (after a reindex); returns how many. */
    async markChangedSince(since: Date): Promise<number> {
      return (
        await EntryModel.collection.updateMany(
          { updated_at: { $gte: since } },
          { $set: { index_pending: true }, $inc: { index_seq: 1 } },
        )
      ).modifiedCount;
    },
    /** Leases per tenant, held across replicas (the skill index's rebuilds take turns with one). */
    leases: mongoLeases(EntryModel.db.collection<LeaseDoc>('knowledge_leases')),
    /** Claims on the two queues (@kb/indexing QueueClaims): entries to index, tombstones to apply. */
    claims: {
      documents: mongoQueueClaims(
        EntryModel.collection,
        { index_pending: true },
        (d) => entryOf(d as unknown as EntryDoc),
        EntryModel,
      ),
      deletions: mongoQueueClaims(
        EntryTombstoneModel.collection,
        {},
        (d) => withId(d as unknown as EntryTombstoneDoc),
        EntryTombstoneModel,
      ),
    },
    /**
     * Marks a version as indexed (and clears an index error and the claim) unless the entry
     * changed meanwhile: a newer version, or any change that queued it again (`seq`, its counter).
     */
    async markIndexed(tenantId: string, id: string, version: number, model: string, seq?: number): Promise<void> {
      const res = await EntryModel.updateOne(indexedFilter({ tenant_id: tenantId, id, version, index_seq: seq }), {
        $set: { indexed_version: version, index_pending: false, embedding_model: model || null },
        $unset: { index_error: '', index_claim: '' },
      });
      // Changed since it was read: still queued, for the next pass, which the claim would delay.
      if (res.matchedCount === 0)
        await EntryModel.updateOne({ tenant_id: tenantId, _id: id }, { $unset: { index_claim: '' } });
    },
    /**
     * Records that the search index refused `version`: out of the queue until a new version (or
     * a retry) and the error on the entry. False when a newer version was written meanwhile
     * (that one is still pending and gets its own try).
     */
    async markRefused(tenantId: string, id: string, version: number, message: string, at: Date): Promise<boolean> {
      const res = await EntryModel.updateOne(
        { tenant_id: tenantId, _id: id, version },
        {
          $set: {
            index_pending: false,
            'index_error.message': message,
            'index_error.at': at,
            'index_error.version': version,
          },
          $inc: { 'index_error.attempts': 1 },
        },
      );
      return res.modifiedCount === 1;
    },
    /** Entries the search index refused, newest refusal first (every tenant unless one is given). */
    async indexErrors(
      tenantId?: string,
    ): Promise<Pick<EntryDoc, '_id' | 'tenant_id' | 'version' | 'index_pending' | 'index_error'>[]> {
      return (await EntryModel.collection
        .find(
          { ...refusedFilter(), ...(tenantId ? { tenant_id: tenantId } : {}) },
          { projection: { tenant_id: 1, version: 1, index_pending: 1, index_error: 1 } },
        )
        .sort({ [REFUSED]: -1 })
        .toArray()) as unknown as Pick<EntryDoc, '_id' | 'tenant_id' | 'version' | 'index_pending' | 'index_error'>[];
    },
    async countIndexErrors(): Promise<number> {
      return EntryModel.collection.countDocuments(refusedFilter());
    },
    /** Queues refused entries again (all, a tenant's, or the given ids); returns how many. */
    async retryIndexErrors(tenantId?: string, ids: string[] = []): Promise<number> {
      const filter = {
        ...refusedFilter(),
        ...(tenantId ? { tenant_id: tenantId } : {}),
        ...(ids.length ? { _id: { $in: ids } } : {}),
      };
      return (
        await EntryModel.collection.updateMany(filter as never, {
          $set: { index_pending: true },
          $inc: { index_seq: 1 },
        })
      ).modifiedCount;
    },
    indexBacklog: (): Promise<IndexBacklog> =>
      readIndexBacklog(EntryModel.collection, { index_pending: true }, EntryTombstoneModel.collection),
    async removeTombstone(tenantId: string, id: string, version: number): Promise<void> {
      await EntryTombstoneModel.deleteOne({ tenant_id: tenantId, _id: id, version });
    },
  };
}
export type EntriesRepo = ReturnType<typeof entriesRepo>;

const ENTRIES = 'knowledge_entries';
/** The filters a list may add to its tenant and order (the readers' visibility, the query's filters): checked per entry. */
const LIST_RESIDUAL = [
  'visibility',
  'owner_key',
  'workspace_id',
  'type',
  'project_ids',
  'layer',
  'expires_at',
  'updated_at',
  '_id',
];
const READABLE = ['visibility', 'owner_key', 'workspace_id'];

/** Every query this repository issues, as an index sees it (@kb/mongo query-shapes; docs/mongodb.md). */
export const ENTRY_QUERIES: QueryShape[] = [
  byIdQuery(
    ENTRIES,
    'entriesRepo by id: findReadable, findManyReadable, updateIfVersion, removeAnyVersion, deleteIfVersion',
    [...READABLE, 'version'],
  ),
  byIdQuery(ENTRIES, 'entriesRepo moveFromCategory, addSite, markIndexed, markRefused', [
    'category_id',
    'site_ids',
    'version',
    'index_seq',
  ]),
  {
    collection: ENTRIES,
    query: 'entriesRepo listStream',
    eq: ['tenant_id'],
    sort: { updated_at: -1, _id: 1 },
    range: ['updated_at'],
    residual: LIST_RESIDUAL,
  },
  {
    collection: ENTRIES,
    query: 'entriesRepo listStream, first page',
    eq: ['tenant_id'],
    sort: { updated_at: -1, _id: 1 },
    residual: LIST_RESIDUAL,
  },
  {
    collection: ENTRIES,
    query: 'entriesRepo listStream of a category',
    eq: ['tenant_id', 'category_id'],
    sort: { updated_at: -1, _id: 1 },
    range: ['updated_at'],
    residual: LIST_RESIDUAL,
  },
  {
    collection: ENTRIES,
    query: 'entriesRepo listStream of a category, first page',
    eq: ['tenant_id', 'category_id'],
    sort: { updated_at: -1, _id: 1 },
    residual: LIST_RESIDUAL,
  },
  { collection: ENTRIES, query: 'entriesRepo countInCategory', eq: ['tenant_id', 'category_id'], residual: ['type'] },
  { collection: ENTRIES, query: 'entriesRepo ofType', eq: ['tenant_id', 'type'], sort: { created_at: 1, _id: 1 } },
  {
    collection: ENTRIES,
    query: 'entriesRepo translationLanguageTaken, translationSource',
    eq: ['tenant_id', 'translation_group_id'],
    residual: ['language', 'translation_of'],
  },
  {
    collection: ENTRIES,
    query: 'entriesRepo translationGroupStream',
    eq: ['tenant_id', 'translation_group_id'],
    sort: { created_at: 1, _id: 1 },
    residual: ['created_at', '_id'],
    sortInMemory: 'a translation group holds at most one entry per language (a unique index)',
  },
  { collection: ENTRIES, query: 'entriesRepo removeSite', eq: ['tenant_id', 'site_ids'] },
  {
    collection: ENTRIES,
    query: 'entriesRepo pendingEntries',
    eq: ['index_pending'],
    range: ['updated_at'],
    residual: ['index_claim', 'index_claim.until'],
  },
  {
    collection: ENTRIES,
    query: 'entriesRepo pendingEntries, every write',
    eq: ['index_pending'],
    residual: ['index_claim', 'index_claim.until'],
  },
  { collection: ENTRIES, query: 'entriesRepo allAfter', sort: { _id: 1 }, range: ['_id'] },
  { collection: ENTRIES, query: 'entriesRepo markChangedSince', range: ['updated_at'] },
  {
    collection: ENTRIES,
    query: 'entriesRepo indexErrors, countIndexErrors, retryIndexErrors',
    exists: [REFUSED],
    residual: ['tenant_id', '_id'],
  },
  {
    collection: ENTRIES,
    query: 'entriesRepo indexErrors',
    exists: [REFUSED],
    sort: { [REFUSED]: -1 },
    residual: ['tenant_id'],
  },
  byIdQuery(ENTRIES, 'findOfTenantByIds: findManyOfTenant, indexStates'),
  queueClaimQueries(ENTRIES, ['index_pending']),
  ...indexBacklogQueries(ENTRIES, 'index_pending', 'knowledge_entry_tombstones'),
  {
    collection: 'knowledge_entry_versions',
    query: 'entriesRepo versionsStream',
    eq: ['tenant_id', 'entry_id'],
    sort: { version: 1 },
    range: ['version'],
  },
  byIdQuery('knowledge_entry_tombstones', 'entriesRepo addTombstone, removeTombstone', ['version']),
  queueClaimQueries('knowledge_entry_tombstones', []),
  {
    collection: 'knowledge_entry_tombstones',
    query: 'entriesRepo pendingTombstones',
    sort: { deleted_at: 1 },
    residual: ['index_claim', 'index_claim.until'],
  },
  byIdQuery('deleted_sites', 'entriesRepo markSiteDeleted, siteDeleted'),
  leaseQueries('knowledge_leases'),
];
