import type { Caller, similarityV1 } from '@kb/platform';

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

export const emptyOutcome = (): DocumentIndexOutcome => ({ indexed: new Map(), refused: new Set() });
