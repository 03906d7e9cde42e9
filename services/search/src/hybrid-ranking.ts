import type { HybridMatches } from './search-queries';
import { byScoreThenId, type RankedHit } from './similar-products';

/** Keyword and vector shares of the hybrid score. */
export const KEYWORD_WEIGHT = 0.6;
export const VECTOR_WEIGHT = 0.4;
/** Inside the keyword half: matches in search_keywords weigh more than matches in the text fields. */
export const KEYWORDS_SHARE = 0.6;
export const TEXT_SHARE = 0.4;

/** A hit as every search answers it (products, entries, similar products). */
/**
 * Keyword part: the BM25 score of the text fields and of search_keywords, each divided by its
 * best score in the list, mixed TEXT_SHARE / KEYWORDS_SHARE ([0, 1]); the vector part is the
 * cosine of the query embedding, clipped at 0. score = KEYWORD_WEIGHT × keyword + VECTOR_WEIGHT ×
 * vector (a literal match is the user's explicit intent); score_sources holds both halves.
 * Exact hits (sku/gtin) come first with score_sources.exact = 1 and 1 added to their score.
 */
export function rankHybrid(matches: HybridMatches, limit: number): RankedHit[] {
  const parts = new Map<string, { keyword: number; vector: number; exact: boolean }>();
  const part = (id: string) => {
    let p = parts.get(id);
    if (!p) parts.set(id, (p = { keyword: 0, vector: 0, exact: false }));
    return p;
  };
  // Each clause normalised by its best score in the list, so a sparse search_keywords field (low
  // IDF when few products have keywords) still outweighs a title match.
  const bestText = Math.max(0, ...matches.keyword.map((h) => h.text));
  const bestKeywords = Math.max(0, ...matches.keyword.map((h) => h.keywords));
  for (const h of matches.keyword) {
    const text = bestText > 0 ? h.text / bestText : 0;
    const keywords = bestKeywords > 0 ? h.keywords / bestKeywords : 0;
    part(h.id).keyword = TEXT_SHARE * text + KEYWORDS_SHARE * keywords;
  }
  for (const h of matches.vector) part(h.id).vector = Math.max(0, h.cosine);
  for (const id of matches.exact) part(id).exact = true;
  const hits = [...parts.entries()].map(([id, p]): RankedHit => {
    const score_sources: Record<string, number> = {
      keyword: KEYWORD_WEIGHT * p.keyword,
      vector: VECTOR_WEIGHT * p.vector,
    };
    if (p.exact) score_sources['exact'] = 1;
    return { id, score: Object.values(score_sources).reduce((a, b) => a + b, 0), score_sources, explanation_json: '' };
  });
  hits.sort(byScoreThenId);
  return hits.slice(0, limit);
}
