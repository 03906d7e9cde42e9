import { backgroundSpan, cachedReading, observeIndexBacklog } from '@kb/platform';
import { inBatches } from './in-batches';
import { emptyOutcome, type IndexCalls } from './index-calls';
import type { IndexedKind } from './index-errors';
import type { DocumentVersion } from './index-store';
import { indexerLoop, type IndexerPass } from './indexer-loop';
import type { IndexerState } from './indexer-state';
import { mayStillRunUntil, withClaims } from './queue-claims';
import { reportIndexErrors } from './refused-documents';
import { indexByTenant, removeByTenant } from './send-documents';

/** How often a scrape may count the documents the index refused, at most. */
const INDEX_ERRORS_MAX_AGE_MS = 60_000;

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
  /** How long a write may spend indexing its own documents: a pass leaves documents written since to it. */
  writeGraceMs?: number;
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

/** One background indexer: the document indexer's shared state, the loop's options and their defaults. */
interface Background<D extends DocumentVersion> {
  state: IndexerState<D>;
  options: BackgroundOptions<D>;
  batchSize: number;
  callsPerPass: number;
  callsInFlight: number;
  storeUp: () => boolean;
}

/** How far a pass's index calls got: the next batch to send, the documents answered, whether a call failed. */
interface CallsProgress {
  next: number;
  done: number;
  failed: boolean;
}

const spanAttributes = (kind: IndexedKind, count: number) => ({
  'kb.document.kind': kind,
  'kb.indexer.documents': count,
});

/**
 * The loop that catches up on the queues (indexerLoop runs `backgroundPass` every interval) and,
 * once started, the backlog metrics. Replaces the nudge of an earlier background indexer.
 */
export function backgroundIndexer<D extends DocumentVersion>(
  state: IndexerState<D>,
  options: BackgroundOptions<D>,
): BackgroundIndexer {
  const bg: Background<D> = {
    state,
    options,
    batchSize: options.batchSize,
    callsPerPass: options.callsPerPass ?? 1,
    callsInFlight: options.callsInFlight ?? 1,
    storeUp: options.storeUp ?? (() => true),
  };
  const loop = indexerLoop({
    name: `${state.names.one} indexer`,
    intervalMs: options.intervalMs,
    logger: state.logger,
    pass: () => backgroundPass(bg),
  });
  state.nudge = () => loop.nudge();
  let unobserve: (() => void) | undefined;
  return {
    start() {
      loop.start();
      unobserve ??= observeBacklog(bg);
    },
    runOnce: loop.runOnce,
    async stop() {
      unobserve?.();
      unobserve = undefined;
      await loop.stop();
    },
  };
}

/** The kind's backlog metrics, observed until the returned function is called; undefined when the store counts no backlog. */
function observeBacklog<D extends DocumentVersion>(bg: Background<D>): (() => void) | undefined {
  const { store, kind } = bg.state;
  const backlog = store.backlog?.bind(store);
  if (!backlog) return undefined;
  // Refusals change rarely and their count is not served by an index: read at most once a minute.
  const indexErrors = cachedReading(() => store.countIndexErrors(), INDEX_ERRORS_MAX_AGE_MS);
  return observeIndexBacklog(kind, async () => {
    if (!bg.storeUp()) return undefined;
    const [waiting, errors] = await Promise.all([backlog(), indexErrors()]);
    return { ...waiting, ...(errors === undefined ? {} : { errors }) };
  });
}

/** One pass: the deletions first, then the queue in calls; `more` when either was read full. */
async function backgroundPass<D extends DocumentVersion>(bg: Background<D>): Promise<DocumentIndexerPass> {
  const { state, options, batchSize } = bg;
  const { calls, store, kind } = state;
  if (!calls || !bg.storeUp()) return { done: 0 };
  await reportIndexErrors(state);
  // Reading the queues is not traced (it happens every interval); the work found is, as a
  // trace of its own (backgroundSpan).
  let done = 0;
  let failed = false;
  const deletions = await store.pendingDeletions(batchSize);
  if (deletions.length) {
    const removed = await withClaims(store.claims?.deletions, deletions, (held) =>
      backgroundSpan(`remove deleted ${kind} from index`, spanAttributes(kind, held.length), () =>
        removeByTenant(state, calls, held, options.deleteDeadlineMs, false),
      ),
    );
    done += removed?.done ?? 0;
    failed ||= removed?.failed ?? false;
  }
  const limit = batchSize * bg.callsPerPass;
  // What was written within a write's own indexing bound is left to that write (it claims it in
  // a moment, and answers with the model when it gets it); a pass takes it if the write did not.
  const pending = await store.pending(limit, new Date(Date.now() - (options.writeGraceMs ?? 0)));
  if (pending.length) {
    const indexed = await indexInCalls(bg, calls, pending, pending.length < limit);
    done += indexed.done;
    failed ||= indexed.failed;
  }
  return { done, failed, more: deletions.length === batchSize || pending.length === limit };
}

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
async function indexInCalls<D extends DocumentVersion>(
  bg: Background<D>,
  send: IndexCalls<D>,
  pending: D[],
  drained: boolean,
): Promise<{ done: number; failed: boolean }> {
  const batches = inBatches(pending, bg.batchSize, bg.options.batchWeight);
  const last = drained ? batches.pop() : undefined;
  const progress: CallsProgress = { next: 0, done: 0, failed: false };
  const workers = Array.from({ length: Math.min(bg.callsInFlight, batches.length) }, () =>
    sendInTurn(bg, send, batches, progress),
  );
  await Promise.all(workers);
  if (last && !progress.failed) await sendBatch(bg, send, last, false, progress);
  return { done: progress.done, failed: progress.failed };
}

/** One of the calls in flight: takes the next batch while no call has failed. */
async function sendInTurn<D extends DocumentVersion>(
  bg: Background<D>,
  send: IndexCalls<D>,
  batches: D[][],
  progress: CallsProgress,
): Promise<void> {
  while (!progress.failed && progress.next < batches.length)
    await sendBatch(bg, send, batches[progress.next++] as D[], true, progress);
}

/** One index call of the pass (one per tenant in it), its answers counted into `progress`. */
async function sendBatch<D extends DocumentVersion>(
  bg: Background<D>,
  send: IndexCalls<D>,
  batch: D[],
  searchableLater: boolean,
  progress: CallsProgress,
): Promise<void> {
  const { state, options } = bg;
  const outcome = emptyOutcome();
  // Claimed just before the call, so a claim lasts one call, not a pass; what another replica
  // (or a write) claimed since the queue was read is its to index.
  const held = await withClaims(state.store.claims?.documents, batch, async (docs, { keep, settled }) => {
    const until = mayStillRunUntil(options.indexDeadlineMs);
    await backgroundSpan(`index pending ${state.kind}`, spanAttributes(state.kind, docs.length), () =>
      indexByTenant(state, send, docs, { deadlineMs: options.indexDeadlineMs, searchableLater }, outcome, false),
    );
    keep(
      docs.filter((d) => outcome.inDoubt.has(d.id)),
      until,
    );
    settled(outcome.indexed.keys());
    return docs.length;
  });
  const answered = outcome.indexed.size + outcome.refused.size; // a refusal is an answer too
  progress.done += answered;
  if (answered < (held ?? 0)) progress.failed = true;
}
