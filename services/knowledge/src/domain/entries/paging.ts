import { AppError } from '@kb/common';

const DEFAULT_PAGE = 100;
const MAX_PAGE = 500;

/** The page size asked for, within 1..MAX_PAGE; 0 (not sent) is the default. */
export function pageSize(limit: number): number {
  return limit > 0 ? Math.min(limit, MAX_PAGE) : DEFAULT_PAGE;
}

/** The opaque next-page cursor: the last entry's place in the list's order (updated_at desc, id). */
export function encodeCursor(e: { updated_at: Date; id: string }): string {
  return Buffer.from(JSON.stringify([e.updated_at.toISOString(), e.id])).toString('base64url');
}

/** The place a cursor names; 422 at ["query", "cursor"] for anything encodeCursor did not make. */
export function decodeCursor(cursor: string): { updatedAt: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    const updatedAt = new Date(at);
    if (typeof id !== 'string' || Number.isNaN(updatedAt.getTime())) throw new Error('bad cursor');
    return { updatedAt, id };
  } catch {
    throw AppError.invalid([{ loc: ['query', 'cursor'], msg: 'Invalid cursor', type: 'value_error' }]);
  }
}
