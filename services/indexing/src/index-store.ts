import type { IndexBacklog } from '@kb/platform';

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
