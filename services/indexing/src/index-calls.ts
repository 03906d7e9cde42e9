import { AppError, type Caller, type similarityV1 } from '@kb/platform';

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

/**
 * What indexing came to: the model per indexed id ('' when it had no text to embed), the refused
 * ids, and the ids whose call ended without an answer (`inDoubt`): it may still be sitting in a
 * frozen service's socket and run until its deadline, so its claims are kept until then.
 */
export interface DocumentIndexOutcome {
  indexed: Map<string, string>;
  refused: Set<string>;
  inDoubt: Set<string>;
}

export const emptyOutcome = (): DocumentIndexOutcome => ({
  indexed: new Map(),
  refused: new Set(),
  inDoubt: new Set(),
});

/**
 * Whether a failed call may still run on the service: it ran out of time or its connection was
 * lost (a transport failure), as opposed to an answer from the service (its own dependency down).
 */
export function callInDoubt(err: unknown): boolean {
  if (!(err instanceof AppError)) return false;
  return err.kind === 'deadline' || (err.kind === 'unavailable' && / service is unavailable$/.test(err.message));
}
