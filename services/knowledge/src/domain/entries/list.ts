import type { Caller } from '@kb/platform';
import type { Entry } from '../types';
import { skillIndexAsSeenBy } from '../skill-index';
import { readableBy } from '../visibility';
import { viewerFor, type EntryContext } from './context';
import { decodeCursor, encodeCursor, pageSize, takePage, type ItemBytes } from './paging';

export interface EntryListRequest {
  category_id?: string;
  type?: string;
  project_id?: string;
  visibility?: string;
  layer?: string;
  include_expired: boolean;
  /** 0: the default page size. */
  limit: number;
  cursor?: string;
}

/**
 * GET /knowledge-entries: one page of what the caller may read, newest change first; a cursor when
 * there may be more. A page holds `limit` entries, or fewer where the next would pass the answer's
 * byte budget (`bytes` measures an entry as it will be sent); the cursor continues right after the
 * last entry shown either way.
 */
export async function listEntries(
  ctx: EntryContext,
  callerIn: Caller | null | undefined,
  req: EntryListRequest,
  bytes: ItemBytes<Entry>,
): Promise<{ entries: Entry[]; nextCursor?: string }> {
  const v = await viewerFor(ctx, callerIn, 'knowledge:read');
  const { cursor, include_expired, limit: asked, ...filters } = req;
  const limit = pageSize(asked);
  // One more than the page: whether it comes back tells whether there is a next page.
  const stream = ctx.entries.listStream(v.caller.tenant_id, {
    ...filters,
    readableBy: readableBy(v),
    includeExpired: include_expired,
    ...(cursor ? { after: decodeCursor(cursor) } : {}),
    limit: limit + 1,
  });
  const page = await takePage(stream, limit, (e) => skillIndexAsSeenBy(v, e), bytes);
  return {
    entries: page.shown,
    ...(page.more && page.last ? { nextCursor: encodeCursor(page.last) } : {}),
  };
}
