import { SEARCH_DEFAULT_LIMIT, type Caller } from '@kb/common';
import type { Entry } from '../types';
import { isExpired } from '../entry-types';
import { canSee, searchFilter, type Viewer } from '../visibility';
import { viewerFor, type EntryContext } from './context';

export interface EntrySearchRequest {
  query: string;
  /** 0: the default. */
  limit: number;
  /** Empty: every type. */
  types: string[];
  category_id?: string;
  language?: string;
}

interface Hit {
  id: string;
  score: number;
  score_sources: Record<string, number>;
}

export interface EntrySearchHit {
  entry: Entry;
  score: number;
  score_sources: Record<string, number>;
}

/** The hits, in the index's order, whose entry as stored now still matches the request and may be read. */
export function stillMatching(
  v: Viewer,
  req: EntrySearchRequest,
  hits: Hit[],
  loaded: Entry[],
  now: number = Date.now(),
): EntrySearchHit[] {
  const byId = new Map(loaded.filter((e) => canSee(v, e)).map((e) => [e.id, e]));
  const matches = (e: Entry) =>
    (req.types.length === 0 || req.types.includes(e.type)) &&
    (!req.category_id || e.category_id === req.category_id) &&
    (!req.language || e.language === req.language) &&
    !isExpired(e, now);
  return hits.flatMap((h) => {
    const e = byId.get(h.id);
    return e && matches(e) ? [{ entry: e, score: h.score, score_sources: h.score_sources }] : [];
  });
}

/** POST /search/entries: the similarity service ranks; MongoDB has the last word on what is shown. */
export async function searchEntries(
  ctx: EntryContext,
  callerIn: Caller | null | undefined,
  req: EntrySearchRequest,
): Promise<EntrySearchHit[]> {
  const v = await viewerFor(ctx, callerIn, 'knowledge:read');
  const res = await ctx.similarity.call('SearchEntries', {
    caller: v.caller,
    query: req.query,
    limit: req.limit > 0 ? req.limit : SEARCH_DEFAULT_LIMIT,
    visibility: searchFilter(v),
    types: req.types,
    ...(req.category_id ? { category_id: req.category_id } : {}),
    ...(req.language ? { language: req.language } : {}),
  });
  // The index may be stale: load the hits from MongoDB and check each again (stillMatching: may
  // the caller read it as stored now, and does it still match the request).
  const loaded = await ctx.entries.findManyOfTenant(
    v.caller.tenant_id,
    res.hits.map((h) => h.id),
  );
  return stillMatching(v, req, res.hits, loaded);
}
