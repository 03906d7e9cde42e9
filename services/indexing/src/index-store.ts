import type { IndexBacklog } from '@kb/platform';
import type { QueueClaims } from './queue-claims';

/** A document version as the indexer's queues hold it: a write to index, or a deletion to apply. */
export interface DocumentVersion {
  id: string;
  tenant_id: string;
  version: number;
  /**
   * The document's change counter: every change that queues it adds one, with or without a new
   * version (a site assignment, a retry). Marking it indexed clears the queue only if the counter
   * is still the one read, so no change is lost from the index. Absent: the version decides alone.
   */
  index_seq?: number;
}

/** A version the search index holds, with the model that embedded it ('' when it had no text to embed). */
export type IndexedVersion = DocumentVersion & { model: string };

/**
 * What the indexer needs of one kind's storage: the owning service's repository functions. The
 * queue is every document whose current version is not confirmed indexed (and not refused).
 */
export interface IndexStore<D extends DocumentVersion> {
  /**
   * Documents waiting for the index and not claimed, at most `limit`; with `writtenBefore`, only
   * those last written before it (a write just made is being indexed by the write itself).
   */
  pending(limit: number, writtenBefore?: Date): Promise<D[]>;
  /** Deletions not yet applied to the index and not claimed, at most `limit`. */
  pendingDeletions(limit: number): Promise<DocumentVersion[]>;
  /** The index applied this deletion. */
  deletionDone(deletion: DocumentVersion): Promise<unknown>;
  /**
   * The index (its alias) holds these versions: out of the queue (unless changed since: see
   * `index_seq`), any index error cleared; their claims are cleared either way.
   */
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
  /**
   * Leased claims on the two queues, held in the database: with them every attempt (a write's
   * own, or a background pass of any replica) indexes only what it claimed, and `pending` and
   * `pendingDeletions` leave out what a live claim holds. Without them (a store in memory) every
   * attempt takes what it reads.
   */
  claims?: { documents: QueueClaims<D>; deletions: QueueClaims<DocumentVersion> };
}
