import { AppError, type Caller } from '@kb/platform';
import { parseDateTime, withinBudget } from '@kb/rules';
import { DEFAULT_PASSAGES, SEARCH_DEFAULT_LIMIT } from '@kb/search';
import { cutPassages, splitPassages, type AnsweredPassage } from '@kb/text';
import type { Entry } from '../types';
import { isExpired } from '../entry-types';
import { skillIndexAsSeenBy } from '../skill-index';
import { canSee, searchFilter, type Viewer } from '../visibility';
import { viewerFor, type EntryContext } from './context';
import type { ItemBytes } from './paging';
import { coverageOf } from './relevance';

export interface EntrySearchRequest {
  query: string;
  /** 0: the default. */
  limit: number;
  /** Empty: every type. */
  types: string[];
  category_id?: string;
  language?: string;
  /** 0-5; undefined: DEFAULT_PASSAGES. */
  passages?: number;
  /** 0-1; hits below it are left out (default 0). */
  min_relevance?: number;
  site_id?: string;
  /** Any of. */
  tags?: string[];
  updated_after?: string;
  /** false: the hits' entries come back with content '' (their passages are cut first); default true. */
  include_content?: boolean;
}

/** A passage as answered: the text is entry.content.slice(start, end); highlights are offsets inside the text. */
export type EntryPassage = AnsweredPassage;

interface Hit {
  id: string;
  score: number;
  score_sources: Record<string, number>;
  version?: number | string;
  /** 0-1, calibrated by the similarity service. */
  relevance?: number;
  passages?: { start: number; end: number; score: number; cosine: number }[];
}

export interface EntrySearchHit {
  entry: Entry;
  score: number;
  score_sources: Record<string, number>;
  relevance: number;
  passages: EntryPassage[];
}

type Matched = { entry: Entry; hit: Hit };

/** The hits, in the index's order, whose entry as stored now still matches the request and may be read. */
export function stillMatching(
  v: Viewer,
  req: EntrySearchRequest,
  hits: Hit[],
  loaded: Entry[],
  now: number = Date.now(),
): Matched[] {
  const byId = new Map(loaded.filter((e) => canSee(v, e)).map((e) => [e.id, e]));
  const after = req.updated_after ? parseDateTime(req.updated_after) : undefined;
  const matches = (e: Entry) =>
    (req.types.length === 0 || req.types.includes(e.type)) &&
    (!req.category_id || e.category_id === req.category_id) &&
    (!req.language || e.language === req.language) &&
    (!req.site_id || (e.site_ids ?? []).includes(req.site_id)) &&
    (!req.tags || req.tags.length === 0 || req.tags.some((t) => e.tags.includes(t))) &&
    (after === undefined || e.updated_at.getTime() > after) &&
    !isExpired(e, now);
  return hits.flatMap((hit) => {
    const entry = byId.get(hit.id);
    return entry && matches(entry) ? [{ entry, hit }] : [];
  });
}

/**
 * A skill-index hit as the viewer may read it (skills it may not read left out). When some were
 * left out, the index's passages and offsets describe text the viewer does not get: passages are
 * chosen again from what is left, and a hit that nothing left matches is dropped, so a query
 * cannot tell whether a hidden skill says something.
 */
export function seenBy(v: Viewer, query: string, m: Matched): Matched[] {
  const entry = skillIndexAsSeenBy(v, m.entry);
  if (entry === m.entry) return [m];
  if (coverageOf(query, [entry.title, entry.content], entry.language || null) === 0) return [];
  const { version: _stored, ...hit } = m.hit;
  return [{ entry, hit }];
}

/**
 * The passages of a hit as the caller receives them, cut from the entry as stored now. The
 * index's offsets are used only when it holds this very version (so `text` is always
 * `content.slice(start, end)` of the entry answered); a hit indexed from another version has its
 * passages chosen again from the stored content, by how many of the query's stems they hold.
 */
export function passagesFor(entry: Entry, hit: Hit, query: string, count: number): EntryPassage[] {
  if (count <= 0) return [];
  const content = entry.content;
  const language = entry.language || null;
  const fromIndex =
    Number(hit.version) === entry.version && (hit.passages ?? []).every((p) => p.end <= content.length)
      ? (hit.passages ?? []).map((p) => ({ start: p.start, end: p.end, score: p.score }))
      : splitPassages(content)
          .map((p) => ({ start: p.start, end: p.end, score: coverageOf(query, [p.text], language) }))
          .sort((a, b) => b.score - a.score || a.start - b.start);
  return cutPassages(content, fromIndex, query, language, count);
}

/** A matched hit with its passages and the relevance the similarity service calibrated. */
function answered({ entry, hit }: Matched, query: string, passages: number, withContent: boolean): EntrySearchHit {
  return {
    entry: withContent ? entry : { ...entry, content: '' },
    score: hit.score,
    score_sources: hit.score_sources,
    relevance: hit.relevance ?? 0,
    passages: passagesFor(entry, hit, query, passages),
  };
}

/** POST /search/entries: the similarity service ranks; MongoDB has the last word on what is shown. */
export async function searchEntries(
  ctx: EntryContext,
  callerIn: Caller | null | undefined,
  req: EntrySearchRequest,
  bytes: ItemBytes<EntrySearchHit>,
): Promise<EntrySearchHit[]> {
  const v = await viewerFor(ctx, callerIn, 'knowledge:read');
  const min = req.min_relevance ?? 0;
  if (!(min >= 0 && min <= 1))
    throw AppError.invalid([
      { loc: ['min_relevance'], msg: 'min_relevance must be between 0 and 1', type: 'value_error' },
    ]);
  const passages = req.passages ?? DEFAULT_PASSAGES;
  const limit = req.limit > 0 ? req.limit : SEARCH_DEFAULT_LIMIT;
  // The retrieval span (what was asked, which version of which passage was given) is the gateway's:
  // one per search, whichever side answers it.
  const res = await ctx.similarity.call('SearchEntries', {
    caller: v.caller,
    query: req.query,
    limit,
    visibility: searchFilter(v),
    types: req.types,
    passages,
    tags: req.tags ?? [],
    ...(req.category_id ? { category_id: req.category_id } : {}),
    ...(req.language ? { language: req.language } : {}),
    ...(req.site_id ? { site_id: req.site_id } : {}),
    ...(req.updated_after ? { updated_after: req.updated_after } : {}),
  });
  // The index may be stale: load the hits from MongoDB and check each again (stillMatching: may
  // the caller read it as stored now, and does it still match the request).
  const loaded = await ctx.entries.findManyOfTenant(
    v.caller.tenant_id,
    res.hits.map((h) => h.id),
  );
  // The best hits that fit the answer's byte budget (at least the best one): fewer than the
  // limit when the entries are large; a search has no next page.
  return withinBudget(
    stillMatching(v, req, res.hits, loaded)
      .flatMap((m) => seenBy(v, req.query, m))
      .map((m) => answered(m, req.query, passages, req.include_content !== false))
      .filter((h) => h.relevance >= min),
    bytes,
  );
}
