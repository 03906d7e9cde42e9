import { AppError } from '@kb/platform';
import type { Entry } from '../types';
import { notFound } from '../access';
import { assertMayWriteType } from '../entry-types';
import { readableBy, type Viewer } from '../visibility';
import type { EntryContext } from './context';

/** The entry, when the viewer may read it; else 404 `Entry not found` (whether it exists or not). */
export async function loadVisible(ctx: EntryContext, v: Viewer, id: string): Promise<Entry> {
  const entry = await ctx.entries.findReadable(v.caller.tenant_id, id, readableBy(v));
  if (!entry) throw notFound('Entry');
  return entry;
}

/** The entry a write targets: visible, of a type the caller may write, at the If-Match version. */
export async function loadForWrite(
  ctx: EntryContext,
  v: Viewer,
  id: string,
  expectedVersion: number | undefined,
): Promise<Entry> {
  const current = await loadVisible(ctx, v, id);
  assertMayWriteType(v, current.type);
  assertVersionMatches(current, expectedVersion);
  return current;
}

/** 412 when If-Match names another version than the entry's current one (none sent: any). */
export function assertVersionMatches(current: Pick<Entry, 'version'>, expectedVersion: number | undefined): void {
  if (expectedVersion !== undefined && expectedVersion !== current.version) {
    throw new AppError('precondition_failed', `If-Match does not match the entry's current version ${current.version}`);
  }
}
