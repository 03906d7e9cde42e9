import { AppError } from '@kb/platform';
import { AnswerBudget, PAGE_LIMITS } from '@kb/rules';

/** The page size asked for, within 1..PAGE_LIMITS.max; 0 (not sent) is the default. */
export function pageSize(limit: number): number {
  return limit > 0 ? Math.min(limit, PAGE_LIMITS.max) : PAGE_LIMITS.default;
}

/** What an answer's item counts against the byte budget (its message's size; the gRPC adapter knows it). */
export type ItemBytes<T> = (item: T) => number;

const invalidCursor = () =>
  AppError.invalid([{ loc: ['query', 'cursor'], msg: 'Invalid cursor', type: 'value_error' }]);

/** An opaque cursor: a place in a list's order, as base64url JSON. */
function encodePlace(place: unknown[]): string {
  return Buffer.from(JSON.stringify(place)).toString('base64url');
}
function decodePlace(cursor: string): unknown[] {
  try {
    const place = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(place)) return place;
  } catch {
    // below
  }
  throw invalidCursor();
}

/** The opaque next-page cursor of an order by a date and then id: the last item's place. */
export function encodeCursor(e: { updated_at: Date; id: string }): string {
  return encodePlace([e.updated_at.toISOString(), e.id]);
}

/** The place a cursor names; 422 at ["query", "cursor"] for anything encodeCursor did not make. */
export function decodeCursor(cursor: string): { updatedAt: Date; id: string } {
  const [at, id] = decodePlace(cursor);
  const updatedAt = new Date(typeof at === 'string' ? at : Number.NaN);
  if (typeof id !== 'string' || Number.isNaN(updatedAt.getTime())) throw invalidCursor();
  return { updatedAt, id };
}

/** The cursor of an entry's versions: the last version shown ("v" keeps it apart from a list cursor). */
export function encodeVersionCursor(version: number): string {
  return encodePlace(['v', version]);
}
export function decodeVersionCursor(cursor: string): number {
  const [tag, version] = decodePlace(cursor);
  if (tag !== 'v' || !Number.isSafeInteger(version) || (version as number) < 0) throw invalidCursor();
  return version as number;
}

/** The cursor of a translation group (created_at, then id, ascending): the last member shown. */
export function encodeTranslationCursor(e: { created_at: Date; id: string }): string {
  return encodePlace(['t', new Date(e.created_at).toISOString(), e.id]);
}
export function decodeTranslationCursor(cursor: string): { createdAt: Date; id: string } {
  const [tag, at, id] = decodePlace(cursor);
  const createdAt = new Date(typeof at === 'string' ? at : Number.NaN);
  if (tag !== 't' || typeof id !== 'string' || Number.isNaN(createdAt.getTime())) throw invalidCursor();
  return { createdAt, id };
}

/**
 * One page out of items read in order (at most `limit + 1` of them): at most `limit` items, cut
 * short where the next one would pass the byte budget (never before the first). `more` when
 * something was left: the item after the limit, or one the budget refused. Items `show` maps to
 * nothing (the caller may not read them) are passed over, and still move the page's place on.
 * `last` is the last item taken or passed over: the next page starts right after it.
 */
export async function takePage<T, S>(
  items: AsyncIterable<T> | Iterable<T>,
  limit: number,
  show: (item: T) => S | null,
  bytes: ItemBytes<S>,
): Promise<{ shown: S[]; last: T | undefined; more: boolean }> {
  const budget = new AnswerBudget();
  const shown: S[] = [];
  let last: T | undefined;
  let read = 0;
  for await (const item of items) {
    if (read === limit) return { shown, last, more: true };
    read += 1;
    const s = show(item);
    if (s !== null) {
      if (!budget.admit(bytes(s))) return { shown, last, more: true };
      shown.push(s);
    }
    last = item;
  }
  return { shown, last, more: false };
}
