import {
  documentIndexer,
  type DocumentIndexer,
  type DocumentIndexOutcome,
  type IndexedVersion,
  type IndexStore,
} from '@kb/indexing';
import { type Caller, type Logger, type SimilarityClient, type similarityV1 } from '@kb/platform';
import type { EntriesRepo } from '../data-access/entries-repo';
import { entryMessage } from './entry-message';
import type { Entry } from './types';

/** The token id the similarity service logs for the knowledge service's own calls. */
export const INDEXER = 'knowledge-indexer';

/**
 * What the similarity service indexes for an entry (its embedding text is title, summary, content,
 * similarity_text), with the entry as a search hit shows it for the gateway's read path.
 */
export function entryDocument(e: Entry): similarityV1.EntryDocument {
  return {
    id: e.id,
    tenant_id: e.tenant_id,
    version: String(e.version),
    title: e.title,
    ...(e.summary !== null ? { summary: e.summary } : {}),
    content: e.content,
    ...(e.similarity_text !== null ? { similarity_text: e.similarity_text } : {}),
    search_keywords: e.search_keywords ?? [],
    tags: e.tags ?? [],
    type: e.type,
    visibility: e.visibility,
    ...(e.owner_key ? { owner_user_id: e.owner_key } : {}),
    ...(e.workspace_id ? { workspace_id: e.workspace_id } : {}),
    category_id: e.category_id,
    language: e.language,
    ...(e.layer !== null ? { layer: e.layer } : {}),
    updated_at: e.updated_at.toISOString(),
    site_ids: e.site_ids ?? [],
    hit_json: hitJson(e),
    ...(e.expires_at ? { expires_at: e.expires_at.toISOString() } : {}),
  };
}

/** The entry as a search hit shows it, content left out (the index has it as its own field). */
function hitJson(e: Entry): string {
  const { content: _content, ...hit } = entryMessage(e);
  return JSON.stringify(hit);
}

/** The entries' store as the document indexer reads and writes it: the repository's functions. */
function entryStore(repo: EntriesRepo): IndexStore<Entry> {
  const markIndexed = async (done: IndexedVersion[]) => {
    for (const d of done) await repo.markIndexed(d.tenant_id, d.id, d.version, d.model, d.index_seq);
  };
  return {
    pending: (limit, writtenBefore) => repo.pendingEntries(limit, writtenBefore),
    pendingDeletions: (limit) => repo.pendingTombstones(limit),
    deletionDone: (t) => repo.removeTombstone(t.tenant_id, t.id, t.version),
    markIndexed,
    // An entry written into a reindex target is marked as indexed too, with the model that
    // embedded it (its embedding_model follows a model change); products are not.
    markReindexed: markIndexed,
    markRefused: (e, message, at) => repo.markRefused(e.tenant_id, e.id, e.version, message, at),
    countIndexErrors: () => repo.countIndexErrors(),
    backlog: () => repo.indexBacklog(),
    claims: repo.claims,
  };
}

/** The document indexer of entries: IndexEntries and DeleteEntries with the entries' documents. */
export function entryIndexing(deps: {
  repo: EntriesRepo;
  similarity: SimilarityClient;
  logger: Logger;
  immediateDeadlineMs?: number;
}): DocumentIndexer<Entry> {
  const { similarity } = deps;
  return documentIndexer<Entry>({
    kind: 'entries',
    indexerId: INDEXER,
    store: entryStore(deps.repo),
    calls: {
      index: (caller, entries, o) =>
        similarity.call(
          'IndexEntries',
          {
            caller,
            entries: entries.map(entryDocument),
            ...(o.targetIndex ? { target_index: o.targetIndex } : {}),
          },
          { deadlineMs: o.deadlineMs },
        ),
      remove: (caller, documents, o) =>
        similarity.call('DeleteEntries', { caller, documents }, { deadlineMs: o.deadlineMs }),
    },
    logger: deps.logger,
    ...(deps.immediateDeadlineMs !== undefined ? { writeDeadlineMs: deps.immediateDeadlineMs } : {}),
  });
}

/** What indexing came to: the model per indexed id ('' when it has no text to embed) and the refused ids. */
export type EntryIndexOutcome = DocumentIndexOutcome;

/**
 * Writes a page of entries into a reindex target (the admin CLI's reindex), with the answer
 * recorded into `outcome`; only an entry at fault is refused. Throws what is worth retrying.
 */
export async function indexEntries(
  deps: { repo: EntriesRepo; logger: Logger; similarity: SimilarityClient },
  caller: Caller,
  group: Entry[],
  options: { deadlineMs?: number; targetIndex: string },
  outcome: EntryIndexOutcome,
): Promise<void> {
  const done = await entryIndexing(deps).indexInto(options.targetIndex, group, {
    caller,
    ...(options.deadlineMs ? { deadlineMs: options.deadlineMs } : {}),
  });
  for (const [id, model] of done.indexed) outcome.indexed.set(id, model);
  for (const id of done.refused) outcome.refused.add(id);
}

/** How many entries (and delete tombstones) one pass of the background indexer takes, in one call per tenant. */
const BATCH = 200;
/**
 * Content characters per index call at most (an entry over it goes alone): the content is split
 * into passages of up to 1,200 characters, each embedded, so this bounds a call to a few hundred
 * embeddings and one bulk write well under Elasticsearch's request limit.
 */
export const CONTENT_CHARS_PER_CALL = 300_000;
/**
 * The deadline of a background pass's index call. A call at CONTENT_CHARS_PER_CALL embeds ~8,000
 * texts (passages, and each sentence twice): about a minute of the local model on two cores, far
 * past the client's default. A call that still runs out of time is not lost: the similarity
 * service keeps what it embedded and stops (its embedding cache), and the next pass goes on from there.
 */
export const BACKGROUND_INDEX_DEADLINE_MS = 120_000;

/**
 * Keeps the entries' search index in step with MongoDB (the rules: @kb/indexing documentIndexer).
 * Each write tries to index at once (bounded by `immediateDeadlineMs`, never failing the
 * write); a loop catches up on every entry whose indexed version is behind and on delete
 * tombstones, so nothing is lost while Elasticsearch or the similarity service is down.
 */
export function entryIndexer(deps: {
  repo: EntriesRepo;
  similarity: SimilarityClient;
  logger: Logger;
  intervalMs: number;
  immediateDeadlineMs: number;
  isUp: () => boolean;
}) {
  const indexing = entryIndexing(deps);
  const loop = indexing.background({
    intervalMs: deps.intervalMs,
    batchSize: BATCH,
    batchWeight: { of: (e) => e.content.length, max: CONTENT_CHARS_PER_CALL },
    indexDeadlineMs: BACKGROUND_INDEX_DEADLINE_MS,
    writeGraceMs: deps.immediateDeadlineMs,
    storeUp: deps.isUp,
  });
  return {
    indexNow: async (entries: Entry[]) => (await indexing.indexNow(entries)).indexed,
    removeNow: (tombstones: { id: string; tenant_id: string; version: number }[]) => indexing.removeNow(tombstones),
    start: loop.start,
    runOnce: loop.runOnce,
    stop: loop.stop,
  };
}
export type EntryIndexer = ReturnType<typeof entryIndexer>;
