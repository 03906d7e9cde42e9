import type { Caller } from '@kb/platform';
import { backgroundIndexer, type BackgroundIndexer, type BackgroundOptions } from './background-indexer';
import type { DocumentIndexOutcome } from './index-calls';
import type { DocumentVersion } from './index-store';
import { IndexerState, type DocumentIndexerOptions } from './indexer-state';
import { indexPageInto } from './send-documents';
import { indexOnWrite, removeOnWrite } from './write-indexing';

export type { BackgroundIndexer, BackgroundOptions, DocumentIndexerPass } from './background-indexer';
export { inBatches } from './in-batches';
export type { DocumentIndexOutcome, IndexCallOptions, IndexCalls } from './index-calls';
export type { DocumentVersion, IndexedVersion, IndexStore } from './index-store';
export { WRITES_PAUSE_MS, type DocumentIndexerOptions } from './indexer-state';
export {
  CLAIM_MS,
  claimOwner,
  mayStillRunUntil,
  withClaims,
  type KeepClaims,
  type Lease,
  type QueueClaims,
} from './queue-claims';

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

/**
 * The document indexer of one kind (entries in the knowledge service, products in the catalog):
 * keeps the kind's search index in step with MongoDB. A write indexes its documents at once
 * (bounded, never failing the write: write-indexing.ts); a background loop catches up on the
 * queue and the deletions (background-indexer.ts), so nothing is lost while Elasticsearch, the
 * embedder or the similarity service is away. A document the index refuses as it is gets an
 * index error and leaves the queue until it changes (refused-documents.ts). Writes and the loop
 * share one IndexerState: the outage log, the writes' pause and the once-per-start report.
 */
export function documentIndexer<D extends DocumentVersion>(options: DocumentIndexerOptions<D>): DocumentIndexer<D> {
  const state = new IndexerState(options);
  return {
    indexNow: (docs, call) => indexOnWrite(state, docs, call),
    removeNow: (deletions, call) => removeOnWrite(state, deletions, call),
    indexInto: (targetIndex, docs, call) => indexPageInto(state, targetIndex, docs, call),
    background: (loopOptions) => backgroundIndexer(state, loopOptions),
    queued: () => state.nudge?.(),
  };
}
