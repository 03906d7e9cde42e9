/**
 * Which Elasticsearch refusals are retried (it cannot answer now) and which are about the request
 * being too large (split, or the document fails): indexing pressure says both with a 429.
 */
import { errors } from '@elastic/elasticsearch';
import { type AppError, describeCause } from '@kb/platform';
import {
  exceedsIndexingPressure,
  isElasticsearchUnavailable,
  isRequestTooLarge,
  isTooLargeItem,
  isUnavailableItem,
  withElasticsearch,
} from '../src/es-errors';

// As Elasticsearch 9.2.4 answered one 14.5 MB entry on a 512 MB heap (a bulk item).
const PRIMARY_OVER =
  'rejected execution of primary operation [coordinating_and_primary_bytes=14579462, replica_bytes=0, ' +
  'all_bytes=14579462, primary_operation_bytes=58316824, max_primary_bytes=53687091]';
// A node busy with other writes: this operation alone would fit.
const COORDINATING_BUSY =
  'rejected execution of coordinating operation [coordinating_and_primary_bytes=105667381, replica_bytes=0, ' +
  'all_bytes=105667381, coordinating_operation_bytes=2480713, max_coordinating_and_primary_bytes=107374182]';
const COORDINATING_OVER =
  'rejected execution of coordinating operation [coordinating_and_primary_bytes=0, replica_bytes=0, ' +
  'all_bytes=0, coordinating_operation_bytes=54215758, max_coordinating_and_primary_bytes=53687091]';

const response = (statusCode: number, reason: string) =>
  new errors.ResponseError({
    body: { error: { type: 'es_rejected_execution_exception', reason }, status: statusCode },
    statusCode,
    headers: {},
    warnings: null,
    meta: {} as never,
  });

describe('indexing pressure', () => {
  test('when the refused operation alone is over the limit, then it is too large; when the node is only busy, it is not', () => {
    expect(exceedsIndexingPressure(PRIMARY_OVER)).toBe(true);
    expect(exceedsIndexingPressure(COORDINATING_OVER)).toBe(true);
    expect(exceedsIndexingPressure(COORDINATING_BUSY)).toBe(false);
    expect(exceedsIndexingPressure('rejected execution of something else')).toBe(false);
    expect(exceedsIndexingPressure(undefined)).toBe(false);
  });

  test('when a whole bulk request is refused, then a busy node is retried and an operation over the limit is split', () => {
    expect(isElasticsearchUnavailable(response(429, COORDINATING_BUSY))).toBe(true);
    expect(isRequestTooLarge(response(429, COORDINATING_BUSY))).toBe(false);
    expect(isElasticsearchUnavailable(response(429, COORDINATING_OVER))).toBe(false);
    expect(isRequestTooLarge(response(429, COORDINATING_OVER))).toBe(true);
    expect(isRequestTooLarge(response(413, ''))).toBe(true);
  });

  test('when a bulk item is refused, then a busy shard is retried and an operation over the limit is too large', () => {
    const item = (reason: string) => ({ status: 429, error: { type: 'es_rejected_execution_exception', reason } });
    expect(isUnavailableItem(item(PRIMARY_OVER))).toBe(false);
    expect(isTooLargeItem(item(PRIMARY_OVER))).toBe(true);
    expect(isUnavailableItem(item(COORDINATING_BUSY))).toBe(true);
    expect(isTooLargeItem(item(COORDINATING_BUSY))).toBe(false);
    expect(isTooLargeItem({ status: 400, error: { reason: PRIMARY_OVER } })).toBe(false);
  });
});

describe('what an operator reads when Elasticsearch cannot answer', () => {
  test('when a call times out or is refused with a 429, then the 503 keeps the reason as its cause, in one line', async () => {
    const timeout = new errors.TimeoutError('Request timed out');
    const refused = withElasticsearch(() => Promise.reject(timeout));
    await expect(refused).rejects.toMatchObject({ kind: 'unavailable', message: 'Elasticsearch is unavailable' });
    const err = (await refused.catch((e: unknown) => e)) as AppError;
    expect(err.cause).toBe(timeout);
    expect(describeCause(err.cause)).toBe('TimeoutError: Request timed out');
    expect(describeCause(response(429, COORDINATING_BUSY))).toMatch(
      /^ResponseError 429: es_rejected_execution_exception.*rejected execution of coordinating operation/,
    );
    expect(describeCause(response(429, 'y'.repeat(2000))).length).toBe(500);
  });

  test('when the error is about the request, then it passes through unchanged', async () => {
    const notFound = response(404, 'no such index');
    await expect(withElasticsearch(() => Promise.reject(notFound))).rejects.toBe(notFound);
  });
});
