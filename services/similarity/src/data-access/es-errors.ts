import { errors } from '@elastic/elasticsearch';
import { AppError } from '@kb/common';

/** True for errors meaning "Elasticsearch cannot answer now" (down, timing out, overloaded). */
export function isElasticsearchUnavailable(err: unknown): boolean {
  if (err instanceof errors.ConnectionError || err instanceof errors.TimeoutError || err instanceof errors.NoLivingConnectionsError) return true;
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

/** Runs an Elasticsearch call; "cannot answer now" becomes UNAVAILABLE so callers retry later. */
export async function withElasticsearch<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isElasticsearchUnavailable(err)) throw AppError.unavailable('Elasticsearch is unavailable');
    throw err;
  }
}
