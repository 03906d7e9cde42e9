import type { Logger } from '@kb/platform';
import { outageLog, type IndexedKind, type OutageLog } from './index-errors';
import type { IndexCalls } from './index-calls';
import type { DocumentVersion, IndexStore } from './index-store';

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

/**
 * One document indexer's kind, its dependencies and what its writes and its background loop
 * share: the outage log, the writes' pause, the once-per-start report and the loop's nudge.
 */
export class IndexerState<D extends DocumentVersion> {
  readonly kind: IndexedKind;
  readonly names: { one: string; a: string };
  readonly indexerId: string;
  readonly store: IndexStore<D>;
  readonly calls: IndexCalls<D> | undefined;
  readonly logger: Logger;
  readonly writeDeadlineMs: number | undefined;
  // Transient failures are retried by the loop; logged when they start and end, not once per retry.
  readonly outage: OutageLog;
  /** The index errors waiting since earlier runs were reported (once per start). */
  indexErrorsReported = false;
  /** Starts the background indexer's next pass now; set by the background indexer. */
  nudge: (() => void) | undefined;
  private writesPausedUntil = 0;

  constructor(options: DocumentIndexerOptions<D>) {
    this.kind = options.kind;
    this.names = NAMES[options.kind];
    this.indexerId = options.indexerId;
    this.store = options.store;
    this.calls = options.calls;
    this.logger = options.logger;
    this.writeDeadlineMs = options.writeDeadlineMs;
    this.outage = outageLog(options.logger, `${this.names.one} indexing`);
  }

  /** A call got through: writes may wait for the index again. */
  gotThrough(): void {
    this.writesPausedUntil = 0;
    this.outage.recovered();
  }

  /** Whether a write waits for its own indexing (not within WRITES_PAUSE_MS of a write's failure). */
  writesWait(): boolean {
    return Date.now() >= this.writesPausedUntil;
  }

  /** A write's indexing failed: writes answer without waiting for the index for a while. */
  writeFailed(): void {
    this.writesPausedUntil = Date.now() + WRITES_PAUSE_MS;
  }
}
