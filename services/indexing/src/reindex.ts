import type { Caller, SimilarityClient } from '@kb/platform';

/** What writing one page into the new index came to. */
export interface ReindexPageOutcome {
  indexed: number;
  /** Refused as they are: any index of this mapping would refuse them too (recorded as index errors). */
  refused: number;
}

/** Where a reindex run's progress is kept (one per kind, in MongoDB), so a crashed run can be resumed. */
export interface ReindexRun {
  kind: 'entries' | 'products';
  /** The target index from BeginReindex, and the alias it is to go behind. */
  index: string;
  alias: string;
  started_at: Date;
  /** The id of the last document of the last page written (pages go in id order); '' before the first. */
  after: string;
  done: number;
  indexed: number;
  refused: number;
  /** running: begun, or given up on (resumable); finished: the alias swapped. */
  status: 'running' | 'finished';
  updated_at: Date;
}

export interface ReindexRunStore {
  /** The kind's last run, finished or not. */
  last(kind: ReindexRun['kind']): Promise<ReindexRun | null>;
  /** Records a run's state (replaces the kind's last run). */
  save(run: ReindexRun): Promise<void>;
  /**
   * Runs `work` holding the kind's run lease (one run of a kind at a time, across processes),
   * renewed while it runs; throws ReindexBusyError when another run holds it. `lost()` turns true
   * if another run took the lease (this one stalled past its time).
   */
  holding?<T>(kind: ReindexRun['kind'], work: (lost: () => boolean) => Promise<T>): Promise<T>;
}

/**
 * How long a run's lease lasts without renewal; it is renewed every third of that while the run
 * lives, so a run that died frees its kind within a minute (the chart's reindex Job retries with
 * backoff, and its next pod resumes).
 */
export const REINDEX_LEASE_MS = 60_000;

/** Another run of the kind holds its lease: this one starts nothing. */
export class ReindexBusyError extends Error {
  override readonly name = 'ReindexBusyError';
  constructor(kind: string, holder: { owner: string; until: Date }) {
    super(
      `a reindex of ${kind} is already running (${holder.owner}, its lease until ${holder.until.toISOString()}): ` +
        'wait for it to finish; if it died, its lease lapses by then and `--resume` continues its run',
    );
  }
}

export interface ReindexPlan<D extends { id: string }> {
  kind: 'entries' | 'products';
  similarity: SimilarityClient;
  /** A system caller without a tenant: the reindex spans tenants (each document names its own). */
  caller: Caller;
  pageSize: number;
  /** The documents after `afterId` in id order, at most `limit`: one page in memory at a time. */
  page(afterId: string, limit: number): Promise<D[]>;
  /** Writes one page into `targetIndex`. Throwing counts the whole page as not indexed. */
  indexPage(docs: D[], targetIndex: string): Promise<ReindexPageOutcome>;
  /** Queues for the background indexer what was written since `since`; returns how many. */
  requeueWrittenSince(since: Date): Promise<number>;
  /** Where progress is kept after every page; without it a run cannot be resumed. */
  runs?: ReindexRunStore;
  /** Continue the kind's unfinished run (from its last finished page) when there is one. */
  resume?: boolean;
  /** A page not wholly written is written again this many more times, waiting `delayMs`, doubled each time (default 3, 500 ms). */
  retry?: { attempts: number; delayMs: number };
  onBegun?(target: { index: string; alias: string; resumed?: { after: string; done: number } }): void | Promise<void>;
  onPage?(done: number): void;
  /** A page failed and is written again after `delayMs`. */
  onRetry?(attempt: number, delayMs: number, error: string): void;
}

export interface ReindexResult {
  index: string;
  alias: string;
  /** Documents read (by this run, resumed parts included). */
  done: number;
  indexed: number;
  refused: number;
  /** Neither indexed nor refused (a dependency away or slow) after the retries: the run gave up there, the alias stays. */
  failed: number;
  /** The last error of the page given up on, if any. */
  error?: string;
  /** Present when the alias now points at the new index. */
  finished?: { removed_indices: string[]; requeued: number };
  /** Where the run continued from, when it resumed one. */
  resumedAfter?: string;
}

const DEFAULT_RETRY = { attempts: 3, delayMs: 500 };

/** One page written, again after a failure, up to the plan's retries; the outcome of the last attempt. */
async function writePage<D extends { id: string }>(
  plan: ReindexPlan<D>,
  docs: D[],
  index: string,
): Promise<ReindexPageOutcome & { failed: number; error?: string }> {
  const retry = plan.retry ?? DEFAULT_RETRY;
  for (let attempt = 0; ; attempt++) {
    let outcome: ReindexPageOutcome & { failed: number; error?: string };
    try {
      const written = await plan.indexPage(docs, index);
      outcome = { ...written, failed: docs.length - written.indexed - written.refused };
    } catch (err) {
      outcome = { indexed: 0, refused: 0, failed: docs.length, error: (err as Error)?.message ?? String(err) };
    }
    if (outcome.failed === 0 || attempt >= retry.attempts) return outcome;
    // External versions make writing a page again harmless: what is already there is kept.
    const delayMs = retry.delayMs * 2 ** attempt;
    plan.onRetry?.(attempt + 1, delayMs, outcome.error ?? `${outcome.failed} documents not indexed`);
    await new Promise((r) => setTimeout(r, delayMs));
  }
}

/**
 * Rebuilds a kind's index from MongoDB: a new index (BeginReindex), every document written
 * into it page by page, then the alias swapped (FinishReindex) only if nothing failed other
 * than refusals, so searches never move to an index with holes. A page not wholly written is
 * written again a few times with backoff; then the run gives up, its progress kept in `runs`
 * (the last page finished), for a resumed run to continue from there into the same index.
 * Documents written meanwhile are queued again afterwards so the background indexer sends them
 * to the new index too (external versions make that idempotent).
 */
export async function reindex<D extends { id: string }>(plan: ReindexPlan<D>): Promise<ReindexResult> {
  const runs = plan.runs;
  if (!runs?.holding) return reindexHeld(plan, () => false);
  return runs.holding(plan.kind, (lost) => reindexHeld(plan, lost));
}

/** The run itself, its lease held; `lost()` says another run took the lease (this one stops at its next page). */
async function reindexHeld<D extends { id: string }>(
  plan: ReindexPlan<D>,
  lost: () => boolean,
): Promise<ReindexResult> {
  const { kind, similarity, caller } = plan;
  const last = plan.resume ? await plan.runs?.last(kind) : null;
  let run: ReindexRun;
  if (last && last.status === 'running') {
    run = last;
    await plan.onBegun?.({ index: run.index, alias: run.alias, resumed: { after: run.after, done: run.done } });
  } else {
    const started_at = new Date();
    const begun = await similarity.call('BeginReindex', { caller, kind });
    run = {
      kind,
      ...begun,
      started_at,
      after: '',
      done: 0,
      indexed: 0,
      refused: 0,
      status: 'running',
      updated_at: started_at,
    };
    await plan.runs?.save(run);
    await plan.onBegun?.(begun);
  }
  const result: ReindexResult = {
    index: run.index,
    alias: run.alias,
    done: run.done,
    indexed: run.indexed,
    refused: run.refused,
    failed: 0,
    ...(run.after ? { resumedAfter: run.after } : {}),
  };
  for (;;) {
    if (lost())
      throw new Error(`the reindex of ${kind} lost its lease to another run; it stopped after ${run.done} documents`);
    const docs = await plan.page(run.after, plan.pageSize);
    if (docs.length === 0) break;
    const outcome = await writePage(plan, docs, run.index);
    if (outcome.failed > 0) {
      // Given up: the run stays resumable from its last finished page.
      return { ...result, failed: outcome.failed, ...(outcome.error ? { error: outcome.error } : {}) };
    }
    result.indexed += outcome.indexed;
    result.refused += outcome.refused;
    result.done += docs.length;
    run = {
      ...run,
      after: (docs[docs.length - 1] as D).id,
      done: result.done,
      indexed: result.indexed,
      refused: result.refused,
      updated_at: new Date(),
    };
    await plan.runs?.save(run);
    plan.onPage?.(result.done);
  }
  const finished = await similarity.call('FinishReindex', { caller, kind, index: run.index });
  await plan.runs?.save({ ...run, status: 'finished', updated_at: new Date() });
  const requeued = await plan.requeueWrittenSince(run.started_at);
  return {
    ...result,
    index: finished.index,
    alias: finished.alias,
    finished: { removed_indices: finished.removed_indices, requeued },
  };
}
