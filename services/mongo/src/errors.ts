import { AppError } from '@kb/platform';

const UNAVAILABLE_ERRORS = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongooseServerSelectionError',
]);

/** Turns driver errors that mean "MongoDB is not reachable" into a 503-kind AppError. */
export function mapMongoError(err: unknown): unknown {
  const name = (err as { name?: string })?.name ?? '';
  const message = (err as { message?: string })?.message ?? '';
  if (
    UNAVAILABLE_ERRORS.has(name) ||
    /Client must be connected|buffering timed out|before initial connection is complete|connection .* closed/i.test(
      message,
    )
  ) {
    return AppError.unavailable('MongoDB is unavailable', err);
  }
  return err;
}

/** MongoDB's code for a write refused by a unique index. */
const DUPLICATE_KEY = 11000;

export const isDuplicateKey = (err: unknown): boolean => (err as { code?: number } | null)?.code === DUPLICATE_KEY;

/**
 * Runs a write; when a unique index refuses it, answers `instead()` (a value, or an AppError it
 * throws) rather than the driver's error. Data-access code maps duplicate keys only through this.
 */
export async function onDuplicateKey<T, R>(write: () => Promise<T>, instead: () => R): Promise<T | R> {
  try {
    return await write();
  } catch (err) {
    if (isDuplicateKey(err)) return instead();
    throw err;
  }
}
