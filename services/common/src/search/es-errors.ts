import { errors } from '@elastic/elasticsearch';
import { AppError } from '../index';

/** True for errors meaning "Elasticsearch cannot answer now" (down, timing out, overloaded). */
export function isElasticsearchUnavailable(err: unknown): boolean {
  if (
    err instanceof errors.ConnectionError ||
    err instanceof errors.TimeoutError ||
    err instanceof errors.NoLivingConnectionsError
  )
    return true;
  if (err instanceof errors.ResponseError) return err.statusCode === 429 || (err.statusCode ?? 0) >= 500;
  return false;
}

/** The type of an Elasticsearch error response (e.g. resource_already_exists_exception), if any. */
export function elasticsearchErrorType(err: unknown): string | undefined {
  if (err instanceof errors.ResponseError) {
    const body = err.body as { error?: { type?: string } } | undefined;
    return body?.error?.type;
  }
  return undefined;
}

/** A request over http.max_content_length (413): the caller splits it rather than retrying. */
export function isRequestTooLarge(err: unknown): boolean {
  return err instanceof errors.ResponseError && err.statusCode === 413;
}

export const elasticsearchUnavailable = () => AppError.unavailable('Elasticsearch is unavailable');

/** Runs an Elasticsearch call; "cannot answer now" becomes UNAVAILABLE so callers retry later. */
export async function withElasticsearch<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isElasticsearchUnavailable(err)) throw elasticsearchUnavailable();
    throw err;
  }
}

/** The write target does not exist (an alias deleted behind the service's back). */
export class MissingIndexError extends Error {
  constructor(readonly index: string) {
    super(`Index ${index} does not exist`);
  }
}

/** A bulk item error that is about Elasticsearch, not the document: retried like an outage. */
export function isUnavailableItem(op: { status: number; error?: { type?: string } } | undefined): boolean {
  const status = op?.status ?? 0;
  // 429 and 5xx: overloaded or failing; cluster_block_exception (403): an index made read-only
  // (disk watermark, an operator) refuses every document alike until it is lifted.
  return status === 429 || status >= 500 || op?.error?.type === 'cluster_block_exception';
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
