import { AppError, type Logger } from '@kb/platform';

/**
 * What the knowledge and catalog indexers record on a MongoDB document the search index
 * refused: the refusal is about this document as it is, so sending it again unchanged fails
 * again. It stays until a later version is indexed (or an operator re-queues it).
 */
export interface IndexErrorRecord {
  /** The refusal as the similarity service reported it (e.g. "document_parsing_exception: …"). */
  message: string;
  /** When the last refusal happened. */
  at: Date;
  /** Refused attempts since the document was last indexed (new versions and operator retries count). */
  attempts: number;
  /** The version that was refused. */
  version: number;
}

/** Longest message kept on a document: Elasticsearch reasons can quote the refused value. */
export const INDEX_ERROR_MESSAGE_MAX = 1000;

export const indexErrorMessage = (message: string): string =>
  message.length > INDEX_ERROR_MESSAGE_MAX ? `${message.slice(0, INDEX_ERROR_MESSAGE_MAX - 1)}…` : message;

/**
 * A whole indexing call failed with the document(s) refused as they are: INVALID_ARGUMENT from
 * the similarity service. Anything else (UNAVAILABLE, DEADLINE_EXCEEDED, INTERNAL, …) is about
 * the similarity service or its dependencies, not the document, and is retried.
 */
export function isRefusal(err: unknown): boolean {
  return err instanceof AppError && (err.kind === 'invalid' || err.kind === 'bad_request');
}

/** The kinds an indexer works on, as the admin CLI names them. */
export type IndexedKind = 'entries' | 'products';

/** One `index errors` line: kind, tenant, id, refused version (and the current one when newer), attempts, time, message. */
export function indexErrorLine(
  kind: IndexedKind,
  doc: { _id: string; tenant_id: string; version: number; queued: boolean; index_error: IndexErrorRecord },
): string {
  const e = doc.index_error;
  const current =
    doc.version !== e.version
      ? ` (now version ${doc.version}${doc.queued ? ', queued' : ''})`
      : doc.queued
        ? ' (queued)'
        : '';
  return (
    `${kind}\t${doc.tenant_id}\t${doc._id}\tversion ${e.version}${current}` +
    `\tattempts ${e.attempts}\t${new Date(e.at).toISOString()}\t${e.message}`
  );
}

/**
 * Logs a dependency outage of an indexer once, not once per retry: a warning when indexing
 * first fails, debug lines while it keeps failing, and an info line with the duration when
 * it gets through again. Transient failures are retried, never recorded on documents.
 */
export function outageLog(logger: Logger, what: string) {
  let since: number | undefined;
  let failures = 0;
  return {
    failed(err: unknown, context: Record<string, unknown> = {}): void {
      failures += 1;
      const detail = { ...context, err: (err as Error)?.message ?? String(err) };
      if (since === undefined) {
        since = Date.now();
        logger.warn(detail, `${what} deferred: retried until it gets through`);
      } else logger.debug({ ...detail, failures }, `${what} still deferred`);
    },
    recovered(): void {
      if (since === undefined) return;
      logger.info({ down_ms: Date.now() - since, failures }, `${what} resumed`);
      since = undefined;
      failures = 0;
    },
  };
}
export type OutageLog = ReturnType<typeof outageLog>;
