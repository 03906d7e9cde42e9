import { AppError, analyzeText, type similarityV1 } from '@kb/common';
import { entryFilter } from '../data-access/search-queries';
import { entryMatches, entrySearchBodies, type EntryMatches, type PassageMatch } from '../data-access/passage-queries';
import { byScoreThenId, KEYWORDS_SHARE, searchRequest, TEXT_SHARE } from './hybrid-search';
import type { EmbeddingDeps } from './deps';

/** Passages a hit carries at most, and the tags a filter names at most. */
export const MAX_PASSAGES = 5;
export const MAX_FILTER_TAGS = 20;
/**
 * Keyword and vector shares of an entry's score, and of a passage's. Passages give every part of
 * a long entry its own vector, so meaning weighs as much as the words here (products keep
 * KEYWORD_WEIGHT / VECTOR_WEIGHT). Tuned on `npm run eval` (docs/eval.md).
 */
export const ENTRY_KEYWORD_WEIGHT = 0.5;
export const ENTRY_VECTOR_WEIGHT = 0.5;

export interface RankedPassage {
  start: number;
  end: number;
  score: number;
  cosine: number;
}

export interface RankedEntryHit {
  id: string;
  score: number;
  score_sources: Record<string, number>;
  version: number;
  /** The best passage's cosine (0 when kNN did not find the entry): a signal on the model's own scale. */
  cosine: number;
  passages: RankedPassage[];
}

/** The query's stems: in the language asked for, else in every language entries are stemmed in (the union). */
export function queryStems(query: string, language: string | null | undefined): string {
  if (language) return analyzeText(query, language);
  return [...new Set([...analyzeText(query, 'en').split(' '), ...analyzeText(query, 'de').split(' ')])]
    .filter((t) => t !== '')
    .join(' ');
}

/**
 * Keyword part: each clause's BM25 divided by its best in the list (title fields, entry stems and
 * best passage count as one text signal, their maximum; search_keywords on its own, as products
 * do), mixed TEXT_SHARE / KEYWORDS_SHARE. Vector part: the best passage's cosine, clipped at 0.
 * A passage scores the same way from its own BM25 (divided by the best passage BM25 in the
 * answer) and cosine; a hit keeps its `passagesPerHit` best.
 */
export function rankEntries(matches: EntryMatches, limit: number, passagesPerHit: number): RankedEntryHit[] {
  type Part = { keyword: number; vector: number; version: number; passages: Map<number, RankedPassage> };
  const parts = new Map<string, Part>();
  const part = (id: string, version: number) => {
    let p = parts.get(id);
    if (!p) parts.set(id, (p = { keyword: 0, vector: 0, version, passages: new Map() }));
    p.version = Math.max(p.version, version);
    return p;
  };
  const passage = (p: Part, m: PassageMatch) => {
    let r = p.passages.get(m.start);
    if (!r) p.passages.set(m.start, (r = { start: m.start, end: m.end, score: 0, cosine: 0 }));
    return r;
  };
  const best = (xs: number[]) => Math.max(0, ...xs);
  const norm = (x: number, top: number) => (top > 0 ? x / top : 0);
  const k = matches.keyword;
  const tops = {
    text: best(k.map((h) => h.text)),
    stems: best(k.map((h) => h.stems)),
    passage: best(k.map((h) => h.passage)),
    keywords: best(k.map((h) => h.keywords)),
    passageBm25: best(k.flatMap((h) => h.passages.map((x) => x.score))),
  };
  for (const h of k) {
    const p = part(h.id, h.version);
    const text = Math.max(norm(h.text, tops.text), norm(h.stems, tops.stems), norm(h.passage, tops.passage));
    p.keyword = TEXT_SHARE * text + KEYWORDS_SHARE * norm(h.keywords, tops.keywords);
    for (const m of h.passages) passage(p, m).score += ENTRY_KEYWORD_WEIGHT * norm(m.score, tops.passageBm25);
  }
  for (const h of matches.vector) {
    const p = part(h.id, h.version);
    p.vector = Math.max(0, h.cosine);
    for (const m of h.passages) {
      const r = passage(p, m);
      r.cosine = Math.max(0, m.score);
      r.score += ENTRY_VECTOR_WEIGHT * r.cosine;
    }
  }
  const hits = [...parts.entries()].map(([id, p]): RankedEntryHit => {
    const score_sources = { keyword: ENTRY_KEYWORD_WEIGHT * p.keyword, vector: ENTRY_VECTOR_WEIGHT * p.vector };
    const passages = [...p.passages.values()]
      .sort((a, b) => b.score - a.score || a.start - b.start)
      .slice(0, passagesPerHit);
    return {
      id,
      score: score_sources.keyword + score_sources.vector,
      score_sources,
      version: p.version,
      cosine: p.vector,
      passages,
    };
  });
  hits.sort(byScoreThenId);
  return hits.slice(0, limit);
}

function checkedOptions(req: similarityV1.SearchEntriesRequest__Output) {
  const problems: { loc: string[]; msg: string; type: string }[] = [];
  if (!Number.isInteger(req.passages) || req.passages < 0 || req.passages > MAX_PASSAGES)
    problems.push({ loc: ['passages'], msg: `passages must be between 0 and ${MAX_PASSAGES}`, type: 'value_error' });
  if (req.tags.length > MAX_FILTER_TAGS)
    problems.push({ loc: ['tags'], msg: `At most ${MAX_FILTER_TAGS} tags`, type: 'too_long' });
  if (req.updated_after && Number.isNaN(Date.parse(req.updated_after)))
    problems.push({ loc: ['updated_after'], msg: 'updated_after must be an ISO 8601 date-time', type: 'value_error' });
  if (!req.visibility) problems.push({ loc: ['visibility'], msg: 'visibility filter is required', type: 'missing' });
  if (problems.length > 0) throw AppError.invalid(problems);
}

/**
 * SearchEntries: hybrid search over the passages of the tenant's entries the caller's visibility
 * filter lets it see, answered per entry with its best passages (offsets into the indexed
 * version's content; the knowledge service cuts the text from MongoDB).
 */
export async function searchEntries(
  deps: EmbeddingDeps,
  req: similarityV1.SearchEntriesRequest__Output,
): Promise<RankedEntryHit[]> {
  const { tenantId, query, limit } = searchRequest(req);
  checkedOptions(req);
  const filter = entryFilter(tenantId, { ...req, visibility: req.visibility! });
  await deps.indices.ensure('entries');
  const size = Math.max(limit * 3, 30);
  // At least one passage per hit: the knowledge service reads relevance from the best one.
  const passagesPerHit = Math.max(1, req.passages);
  const [queryVector] = await deps.cache.vectors([query], { persist: false });
  const bodies = entrySearchBodies({
    query,
    stems: queryStems(query, req.language),
    size,
    passagesPerHit: passagesPerHit + 2,
    filter,
    queryVector: queryVector!.vector,
  });
  const matches = await entryMatches(deps.es, deps.indices.alias('entries'), bodies);
  return rankEntries(matches, limit, passagesPerHit);
}
