import { errors } from '@elastic/elasticsearch';
import { AppError } from '@kb/platform';

/** True for errors meaning "Elasticsearch cannot answer now" (down, timing out, overloaded). */
export function isElasticsearchUnavailable(err: unknown): boolean {
  if (
    err instanceof errors.ConnectionError ||
    err instanceof errors.TimeoutError ||
    err instanceof errors.NoLivingConnectionsError
  )
    return true;
  if (err instanceof errors.ResponseError)
    return (err.statusCode === 429 && !isOverIndexingPressure(err)) || (err.statusCode ?? 0) >= 500;
  return false;
}

/**
 * Whether an indexing-pressure refusal (429, es_rejected_execution_exception) names an operation
 * larger than the node's whole limit (`coordinating_operation_bytes=N, …, max_…_bytes=M`, or
 * `primary_operation_bytes` at the shard), which waiting never lets through, unlike a node busy
 * with other writes. Seen on Elasticsearch 9.2 for one 14.5 MB entry on a 512 MB heap.
 */
export function exceedsIndexingPressure(reason: string | null | undefined): boolean {
  const operation = /(\w*operation_bytes)=(\d+)/.exec(reason ?? '');
  const max = /max_\w+_bytes=(\d+)/.exec(reason ?? '');
  return operation !== null && max !== null && Number(operation[2]) > Number(max[1]);
}

function isOverIndexingPressure(err: InstanceType<typeof errors.ResponseError>): boolean {
  const body = err.body as { error?: { reason?: string } } | undefined;
  return exceedsIndexingPressure(body?.error?.reason);
}

/** The type of an Elasticsearch error response (e.g. resource_already_exists_exception), if any. */
export function elasticsearchErrorType(err: unknown): string | undefined {
  if (err instanceof errors.ResponseError) {
    const body = err.body as { error?: { type?: string } } | undefined;
    return body?.error?.type;
  }
  return undefined;
}

/**
 * A request over http.max_content_length (413) or larger than indexing pressure ever admits (a
 * 429 naming an operation over the limit): the caller splits it rather than retrying.
 */
export function isRequestTooLarge(err: unknown): boolean {
  return (
    err instanceof errors.ResponseError &&
    (err.statusCode === 413 || (err.statusCode === 429 && isOverIndexingPressure(err)))
  );
}

/** UNAVAILABLE, keeping Elasticsearch's own error (a timeout, a 429, a 5xx) as the cause the service logs. */
export const elasticsearchUnavailable = (cause?: unknown) =>
  AppError.unavailable('Elasticsearch is unavailable', cause);

/** Runs an Elasticsearch call; "cannot answer now" becomes UNAVAILABLE so callers retry later. */
export async function withElasticsearch<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isElasticsearchUnavailable(err)) throw elasticsearchUnavailable(err);
    throw err;
  }
}

/** The write target does not exist (an alias deleted behind the service's back). */
export class MissingIndexError extends Error {
  constructor(readonly index: string) {
    super(`Index ${index} does not exist`);
  }
}

/**
 * The write alias points at more than one index, none of them its write index: Elasticsearch
 * refuses every write through it (`no write index is defined for alias`). The aftermath of an
 * index creation race whose loser did not remove its index (its check failed or saw too early);
 * never a document's fault.
 */
export class SplitAliasError extends Error {
  constructor(readonly alias: string) {
    super(`Alias ${alias} points at more than one index`);
  }
}

/** A bulk item refused because its alias points at several indices (SplitAliasError), not because of the document. */
export function isSplitAliasItem(op: { error?: { type?: string; reason?: string | null } } | undefined): boolean {
  return (
    op?.error?.type === 'illegal_argument_exception' && (op.error.reason ?? '').includes('no write index is defined')
  );
}

/** A bulk item error that is about Elasticsearch, not the document: retried like an outage. */
export function isUnavailableItem(
  op: { status: number; error?: { type?: string; reason?: string | null } } | undefined,
): boolean {
  const status = op?.status ?? 0;
  // 429 and 5xx: overloaded or failing (but not an operation larger than indexing pressure ever
  // admits: isTooLargeItem); cluster_block_exception (403): an index made read-only (disk
  // watermark, an operator) refuses every document alike until it is lifted.
  return (status === 429 && !isTooLargeItem(op)) || status >= 500 || op?.error?.type === 'cluster_block_exception';
}

/** A bulk item refused because its shard's operation is larger than indexing pressure ever admits. */
export function isTooLargeItem(op: { status: number; error?: { reason?: string | null } } | undefined): boolean {
  return op?.status === 429 && exceedsIndexingPressure(op.error?.reason);
}

/** Elasticsearch's reason for refusing a document, with its type ("document_parsing_exception: …"). */
export function refusal(error: {
  type?: string;
  reason?: string | null;
  caused_by?: { type?: string; reason?: string | null };
}): string {
  const cause =
    error.caused_by?.reason && error.caused_by.reason !== error.reason
      ? ` (${error.caused_by.type}: ${error.caused_by.reason})`
      : '';
  return `${error.type ?? 'error'}: ${error.reason ?? ''}${cause}`;
}
