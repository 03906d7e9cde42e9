import {
  systemCaller,
  type Caller,
  type similarityV1,
  type Logger,
  cachedReading,
  observeIndexBacklog,
  type IndexBacklog,
  backgroundSpan,
} from '@kb/platform';
import { indexErrorMessage, outageLog, type IndexedKind } from './index-errors';
import { indexSplittingRefusals } from './index-refusals';
import { indexerLoop, type IndexerPass } from './indexer-loop';

/** How often a scrape may count the documents the index refused, at most. */
const INDEX_ERRORS_MAX_AGE_MS = 60_000;

/** A document version as the indexer's queues hold it: a write to index, or a deletion to apply. */
export interface DocumentVersion {
  id: string;
  tenant_id: string;
  version: number;
}

/** A version the search index holds, with the model that embedded it ('' when it had no text to embed). */
export type IndexedVersion = DocumentVersion & { model: string };

/**
 * What the indexer needs of one kind's storage: the owning service's repository functions. The
 * queue is every document whose current version is not confirmed indexed (and not refused).
 */
export interface IndexStore<D extends DocumentVersion> {
  /** Documents waiting for the index, at most `limit`. */
  pending(limit: number): Promise<D[]>;
  /** Deletions not yet applied to the index, at most `limit`. */
  pendingDeletions(limit: number): Promise<DocumentVersion[]>;
  /** The index applied this deletion. */
  deletionDone(deletion: DocumentVersion): Promise<unknown>;
  /** The index (its alias) holds these versions: out of the queue, any index error cleared. */
  markIndexed(done: IndexedVersion[]): Promise<void>;
  /**
   * These versions were written into a reindex target (the alias still points at the old
   * index); without it nothing is recorded and they stay as they were.
   */
  markReindexed?(done: IndexedVersion[]): Promise<void>;
  /** The index refused this version as it is: out of the queue, with the error. False when a newer version was written meanwhile. */
  markRefused(doc: DocumentVersion, message: string, at: Date): Promise<boolean>;
  countIndexErrors(): Promise<number>;
  /** How many documents wait and since when (the backlog metrics). */
  backlog?(): Promise<IndexBacklog>;
}

/** One index call's options. */
export interface IndexCallOptions {
  /** The call's deadline; else the similarity client's. */
  deadlineMs?: number;
  /** A reindex target from BeginReindex; else the alias. */
  targetIndex?: string;
  /** Nobody waits on the answer: the documents may become searchable at the index's next periodic refresh. */
  searchableLater?: boolean;
}

/** What the indexer needs of the similarity service for one kind: IndexEntries/DeleteEntries, IndexProducts/DeleteProducts. */
export interface IndexCalls<D> {
  /** One call with these documents (the kind builds its index documents). Throws what the service refused or could not do. */
  index(caller: Caller, docs: D[], options: IndexCallOptions): Promise<similarityV1.IndexResponse__Output>;
  remove(caller: Caller, documents: similarityV1.DocumentRef[], options: { deadlineMs?: number }): Promise<unknown>;
}

/** What indexing came to: the model per indexed id ('' when it had no text to embed), and the refused ids. */
export interface DocumentIndexOutcome {
  indexed: Map<string, string>;
  refused: Set<string>;
}

export interface DocumentIndexerOptions<D extends DocumentVersion> {
  kind: IndexedKind;
  /** Names the indexer in the system caller's token id (the similarity service logs it). */
  indexerId: string;
  store: IndexStore<D>;
  /** Absent when the similarity service is not known: nothing is sent, the queues wait. */
  calls: IndexCalls<D> | undefined;
  logger: Logger;
  /** The bound of a write's own indexing when the write gives none; else the client's deadline. */
  writeDeadlineMs?: number;
}

/** How the background indexer reads and sends its queues. */
export interface BackgroundOptions<D = unknown> {
  intervalMs: number;
  /** Documents per index call, and deletions read per pass. */
  batchSize: number;
  /** Calls of `batchSize` one pass reads (default 1). */
  callsPerPass?: number;
  /**
   * A call also ends before its documents' summed weight passes `maxBatchWeight` (a document
   * heavier than that goes alone): entries weigh their content, which is split into passages and
   * each passage embedded, so 200 entries at the content bound would be one call of ~25,000
   * embeddings.
   */
  batchWeight?: { of: (d: D) => number; max: number };
  /** Calls in flight at once (default 1). */
  callsInFlight?: number;
  /** The deadline of a pass's index calls; else the client's. */
  indexDeadlineMs?: number;
  /** The deadline of a pass's delete calls; else the client's. */
  deleteDeadlineMs?: number;
  /** False while the store is away (MongoDB down): a pass does nothing (no failure), the backlog is not read. */
  storeUp?: () => boolean;
}

/** One background pass: `done` documents indexed, refused or deleted from the index. */
export interface DocumentIndexerPass extends IndexerPass {
  done: number;
}

export interface BackgroundIndexer {
  /** The first pass one interval from now; the backlog metrics are observed until stop. */
  start(): void;
  runOnce(): Promise<DocumentIndexerPass | undefined>;
  stop(): Promise<void>;
}

export interface DocumentIndexer<D extends DocumentVersion> {
  /**
   * A write's own indexing, bounded: never throws, one call per tenant. Skipped while writes do
   * not wait for the index (after a failed attempt); what is not confirmed stays queued.
   */
  indexNow(docs: D[], options?: { deadlineMs?: number }): Promise<DocumentIndexOutcome>;
  /** A write's deletions, bounded, as indexNow; what does not get through waits for the background indexer. */
  removeNow(deletions: DocumentVersion[], options?: { deadlineMs?: number }): Promise<void>;
  /**
   * One reindex page into `targetIndex`, in one call across tenants (`caller`: the indexer's
   * system caller without a tenant). Refusals are recorded as index errors. Throws what is
   * worth retrying: the page did not get through.
   */
  indexInto(
    targetIndex: string,
    docs: D[],
    options?: { deadlineMs?: number; caller?: Caller },
  ): Promise<DocumentIndexOutcome>;
  /** The loop that catches up on the queues; one per indexer (a second call replaces the first's nudges). */
  background(options: BackgroundOptions<D>): BackgroundIndexer;
  /** Writes left documents queued: the background indexer's next pass starts now, not at the end of its interval. */
  queued(): void;
}

const NAMES: Record<IndexedKind, { one: string; a: string }> = {
  entries: { one: 'entry', a: 'an entry' },
  products: { one: 'product', a: 'a product' },
};

/**
 * After a write's indexing fails, writes stop waiting for the index until a call gets through
 * again (the background indexer's) or this long has passed: during an outage every write
 * answers at once instead of each spending its bound on a dependency known to be away.
 */
export const WRITES_PAUSE_MS = 10_000;

const emptyOutcome = (): DocumentIndexOutcome => ({ indexed: new Map(), refused: new Set() });

function byTenant<T extends { tenant_id: string }>(items: T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(item.tenant_id, [...(groups.get(item.tenant_id) ?? []), item]);
  return groups;
}

const refOf = (d: DocumentVersion): similarityV1.DocumentRef => ({ id: d.id, version: String(d.version) });

/**
 * The document indexer of one kind (entries in the knowledge service, products in the catalog):
 * keeps the kind's search index in step with MongoDB. A write indexes its documents at once
 * (bounded, never failing the write); a background loop catches up on the queue and the
 * deletions, so nothing is lost while Elasticsearch, the embedder or the similarity service is
 * away. A document the index refuses as it is gets an index error and leaves the queue until
 * it changes. One closure: writes and the loop share the outage log, the writes' pause and the
 * once-per-start report.
 */
export function documentIndexer<D extends DocumentVersion>(options: DocumentIndexerOptions<D>): DocumentIndexer<D> {
  const { kind, indexerId, store, calls, logger } = options;
  const names = NAMES[kind];
  // Transient failures are retried by the loop; logged when they start and end, not once per retry.
  const outage = outageLog(logger, `${names.one} indexing`);
  let writesPausedUntil = 0;
  let reported = false;
  let nudge: (() => void) | undefined;

  /** A call got through: writes may wait for the index again. */
  const gotThrough = () => {
    writesPausedUntil = 0;
    outage.recovered();
  };

  /**
   * The search index refused this version as it is: retrying it unchanged cannot help, so it is
   * recorded on the document (and out of the queue) until a new version or `admin index retry`,
   * and logged once, at error level.
   */
  async function recordRefusal(doc: D, reason: string, outcome: DocumentIndexOutcome): Promise<void> {
    outcome.refused.add(doc.id);
    const message = indexErrorMessage(reason || 'refused without a reason');
    // False when a newer version was written meanwhile: that one is queued and gets its own try.
    if (!(await store.markRefused(doc, message, new Date()))) return;
    logger.error(
      {
        tenant_id: doc.tenant_id,
        [`${names.one}_id`]: doc.id,
        version: doc.version,
        error: message,
        index_errors: await store.countIndexErrors(),
      },
      `the search index refused ${names.a}; not retried until it changes (npm run admin -- index errors)`,
    );
  }

  /**
   * One call (split when the whole call is refused, so only a document at fault is refused):
   * indexed versions (or stale: a newer one is indexed already) are marked, refused ones
   * recorded, both into `outcome`. Throws what is worth retrying.
   */
  async function indexGroup(
    send: IndexCalls<D>,
    caller: Caller,
    group: D[],
    call: IndexCallOptions,
    outcome: DocumentIndexOutcome,
  ): Promise<void> {
    await indexSplittingRefusals(group, (docs: D[]) => send.index(caller, docs, call), {
      answered: async (docs, res) => {
        const byId = new Map(docs.map((d) => [d.id, d]));
        const confirmed: IndexedVersion[] = [];
        for (const r of res.results) {
          const doc = byId.get(r.id);
          if (!doc) continue;
          if (r.status === 'failed') await recordRefusal(doc, r.error, outcome);
          else if (r.status === 'indexed' || r.status === 'stale') {
            const { id, tenant_id, version } = doc;
            confirmed.push({ id, tenant_id, version, model: r.embeddings ? res.model : '' });
          }
        }
        // One write back for the whole answer; each document's own version decides what it clears.
        if (!call.targetIndex) await store.markIndexed(confirmed);
        else await store.markReindexed?.(confirmed);
        for (const c of confirmed) outcome.indexed.set(c.id, c.model);
      },
      refused: (doc, reason) => recordRefusal(doc, reason, outcome),
    });
  }

  /**
   * One call per tenant. A failed call is logged (as an outage) and the next tenant is tried,
   * unless `stopAtFailure`. Returns whether every call got through.
   */
  async function indexByTenant(
    send: IndexCalls<D>,
    docs: D[],
    call: IndexCallOptions,
    outcome: DocumentIndexOutcome,
    stopAtFailure: boolean,
  ): Promise<boolean> {
    let through = true;
    for (const [tenantId, group] of byTenant(docs)) {
      try {
        await indexGroup(send, systemCaller(indexerId, tenantId), group, call, outcome);
        gotThrough();
      } catch (err) {
        through = false;
        outage.failed(err, { tenant_id: tenantId, count: group.length });
        if (stopAtFailure) break;
      }
    }
    return through;
  }

  /** Deletions, one call per tenant; returns how many were applied and whether a call failed. */
  async function removeByTenant(
    send: IndexCalls<D>,
    deletions: DocumentVersion[],
    deadlineMs: number | undefined,
    stopAtFailure: boolean,
  ): Promise<{ done: number; failed: boolean }> {
    let done = 0;
    let failed = false;
    for (const [tenantId, group] of byTenant(deletions)) {
      try {
        await send.remove(systemCaller(indexerId, tenantId), group.map(refOf), { deadlineMs });
        for (const d of group) await store.deletionDone(d);
        done += group.length;
        gotThrough();
      } catch (err) {
        failed = true;
        outage.failed(err, { tenant_id: tenantId, count: group.length });
        if (stopAtFailure) break;
      }
    }
    return { done, failed };
  }

  const writesWait = () => Date.now() >= writesPausedUntil;
  const writeFailed = () => {
    writesPausedUntil = Date.now() + WRITES_PAUSE_MS;
  };

  /** Once per start: documents waiting for an operator (or a new version) since earlier runs. */
  async function reportIndexErrors(): Promise<void> {
    if (reported) return;
    const count = await store.countIndexErrors();
    reported = true;
    if (count > 0)
      logger.warn(
        { index_errors: count },
        `${count} ${kind} were refused by the search index (npm run admin -- index errors)`,
      );
  }

  function background(loopOptions: BackgroundOptions<D>): BackgroundIndexer {
    const { batchSize } = loopOptions;
    const callsPerPass = loopOptions.callsPerPass ?? 1;
    const callsInFlight = loopOptions.callsInFlight ?? 1;
    const storeUp = loopOptions.storeUp ?? (() => true);
    const attributes = (count: number) => ({ 'kb.document.kind': kind, 'kb.indexer.documents': count });

    /**
     * The queue in calls of `batchSize`, `callsInFlight` at a time (while one call's documents
     * are written and marked, the next call's texts are embedded). A call that does not get all
     * of its documents through (a dependency away) stops further calls: the pass has failed.
     *
     * Nobody waits on these answers, so the calls do not force a refresh: the documents become
     * searchable at the index's next periodic refresh. Except when the pass empties the queue
     * (`drained`): its last call is sent after the others have answered and refreshes before it
     * answers, so what was queued is searchable as soon as the queue is empty, while a long
     * backlog is not cut into a segment per call.
     */
    async function indexInCalls(
      send: IndexCalls<D>,
      pending: D[],
      drained: boolean,
    ): Promise<{ done: number; failed: boolean }> {
      const batches = inBatches(pending, batchSize, loopOptions.batchWeight);
      const last = drained ? batches.pop() : undefined;
      let next = 0;
      let done = 0;
      let failed = false;
      const sendBatch = async (batch: D[], searchableLater: boolean) => {
        const outcome = emptyOutcome();
        await backgroundSpan(`index pending ${kind}`, attributes(batch.length), () =>
          indexByTenant(send, batch, { deadlineMs: loopOptions.indexDeadlineMs, searchableLater }, outcome, false),
        );
        const answered = outcome.indexed.size + outcome.refused.size; // a refusal is an answer too
        done += answered;
        if (answered < batch.length) failed = true;
      };
      const worker = async () => {
        while (!failed && next < batches.length) await sendBatch(batches[next++] as D[], true);
      };
      await Promise.all(Array.from({ length: Math.min(callsInFlight, batches.length) }, worker));
      if (last && !failed) await sendBatch(last, false);
      return { done, failed };
    }

    async function pass(): Promise<DocumentIndexerPass> {
      if (!calls || !storeUp()) return { done: 0 };
      await reportIndexErrors();
      // Reading the queues is not traced (it happens every interval); the work found is, as a
      // trace of its own (backgroundSpan).
      let done = 0;
      let failed = false;
      const deletions = await store.pendingDeletions(batchSize);
      if (deletions.length) {
        const removed = await backgroundSpan(`remove deleted ${kind} from index`, attributes(deletions.length), () =>
          removeByTenant(calls, deletions, loopOptions.deleteDeadlineMs, false),
        );
        done += removed.done;
        failed ||= removed.failed;
      }
      const limit = batchSize * callsPerPass;
      const pending = await store.pending(limit);
      if (pending.length) {
        const indexed = await indexInCalls(calls, pending, pending.length < limit);
        done += indexed.done;
        failed ||= indexed.failed;
      }
      return { done, failed, more: deletions.length === batchSize || pending.length === limit };
    }

    const loop = indexerLoop({ name: `${names.one} indexer`, intervalMs: loopOptions.intervalMs, logger, pass });
    nudge = () => loop.nudge();
    let unobserve: (() => void) | undefined;
    return {
      start() {
        loop.start();
        const backlog = store.backlog?.bind(store);
        if (backlog && !unobserve) {
          // Refusals change rarely and their count is not served by an index: read at most once a minute.
          const indexErrors = cachedReading(() => store.countIndexErrors(), INDEX_ERRORS_MAX_AGE_MS);
          unobserve = observeIndexBacklog(kind, async () => {
            if (!storeUp()) return undefined;
            const [waiting, errors] = await Promise.all([backlog(), indexErrors()]);
            return { ...waiting, ...(errors === undefined ? {} : { errors }) };
          });
        }
      },
      runOnce: loop.runOnce,
      async stop() {
        unobserve?.();
        unobserve = undefined;
        await loop.stop();
      },
    };
  }

  return {
    async indexNow(docs, call = {}) {
      const outcome = emptyOutcome();
      if (!calls || docs.length === 0 || !writesWait()) return outcome;
      const deadlineMs = call.deadlineMs ?? options.writeDeadlineMs;
      // A write's documents are one tenant's: after a failure the write answers rather than wait again.
      if (!(await indexByTenant(calls, docs, { deadlineMs }, outcome, true))) writeFailed();
      return outcome;
    },
    async removeNow(deletions, call = {}) {
      if (!calls || deletions.length === 0 || !writesWait()) return;
      const deadlineMs = call.deadlineMs ?? options.writeDeadlineMs;
      if ((await removeByTenant(calls, deletions, deadlineMs, true)).failed) writeFailed();
    },
    async indexInto(targetIndex, docs, call = {}) {
      const outcome = emptyOutcome();
      if (!calls) throw new Error('The similarity service is not known');
      const caller = call.caller ?? systemCaller(indexerId, '');
      await indexGroup(calls, caller, docs, { targetIndex, deadlineMs: call.deadlineMs }, outcome);
      return outcome;
    },
    background,
    queued: () => nudge?.(),
  };
}

/** `docs` in order, in batches of at most `size` and (when given) at most `weight.max` summed weight, never empty. */
export function inBatches<D>(docs: D[], size: number, weight?: { of: (d: D) => number; max: number }): D[][] {
  const batches: D[][] = [];
  let current: D[] = [];
  let sum = 0;
  for (const d of docs) {
    const w = weight ? weight.of(d) : 0;
    if (current.length > 0 && (current.length >= size || (weight && sum + w > weight.max))) {
      batches.push(current);
      current = [];
      sum = 0;
    }
    current.push(d);
    sum += w;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
