import type { Client, estypes } from '@elastic/elasticsearch';
import { AppError, SEARCH_DEFAULT_LIMIT } from '@kb/common';
import { withElasticsearch } from './data-access/es-errors';
import type { EmbeddingCache } from './embedding-cache';

/** Hits the similarity service answers at most, for callers that do not pass through the gateway (which publishes a lower bound). */
export const SEARCH_MAX_LIMIT = 100;
export const MAX_QUERY_LENGTH = 1000;
/** Keyword and vector shares of the hybrid score. */
export const KEYWORD_WEIGHT = 0.6;
export const VECTOR_WEIGHT = 0.4;
/** Inside the keyword half: matches in search_keywords weigh more than matches in the text fields. */
export const KEYWORDS_SHARE = 0.6;
export const TEXT_SHARE = 0.4;

export interface HybridHit {
  id: string;
  score: number;
  score_sources: Record<string, number>;
  explanation_json: string;
}

export function searchLimit(limit: number): number {
  const value = limit === 0 ? SEARCH_DEFAULT_LIMIT : limit;
  if (!Number.isInteger(value) || value < 1 || value > SEARCH_MAX_LIMIT) {
    throw AppError.invalid([{ loc: ['limit'], msg: `limit must be between 1 and ${SEARCH_MAX_LIMIT}`, type: 'value_error' }]);
  }
  return value;
}

export function searchQuery(query: string): string {
  const q = query.trim();
  if (q === '' || q.length > MAX_QUERY_LENGTH) {
    throw AppError.invalid([{ loc: ['query'], msg: `query must be 1 to ${MAX_QUERY_LENGTH} characters`, type: 'value_error' }]);
  }
  return q;
}

/**
 * Hybrid keyword + vector search combined in code (no RRF, no scripts). Keyword part: the BM25
 * score of the text fields and of search_keywords, each divided by its best score in the list,
 * mixed 0.4 / 0.6 ([0, 1]); the vector part is the cosine of the query
 * embedding, clipped at 0. score = 0.6 × keyword + 0.4 × vector (a literal match is the user's explicit intent); score_sources holds both halves.
 * Exact hits (sku/gtin) come first with score_sources.exact = 1 and 1 added to their score.
 */
export async function hybridSearch(
  deps: { es: Client; cache: EmbeddingCache },
  options: {
    index: string;
    query: string;
    limit: number;
    filter: estypes.QueryDslQueryContainer;
    /** Text fields with their boosts (title above the rest). */
    textFields: string[];
    /** The search_keywords field: scored as its own clause, above the text fields. */
    keywordField: string;
    vectorField: string;
    exactFields?: string[];
  },
): Promise<HybridHit[]> {
  const { es } = deps;
  const { index, query, limit, filter } = options;
  const n = Math.max(limit * 3, 30);
  const [queryVector] = await deps.cache.vectors([query], { persist: false });
  const [keyword, vector, exact] = await withElasticsearch(() =>
    Promise.all([
      es.search({
        index,
        size: n,
        _source: false,
        include_named_queries_score: true,
        query: {
          bool: {
            filter: [filter],
            should: [
              { multi_match: { query, fields: options.textFields, type: 'best_fields', _name: 'text' } },
              { match: { [options.keywordField]: { query, _name: 'keywords' } } },
            ],
            minimum_should_match: 1,
          },
        },
      }),
      es.search({
        index,
        size: n,
        _source: false,
        knn: { field: options.vectorField, query_vector: Array.from(queryVector!.vector), k: n, num_candidates: Math.max(200, 2 * n), filter: [filter] },
      }),
      options.exactFields && options.exactFields.length > 0
        ? es.search({ index, size: limit, _source: false, query: { bool: { filter: [filter], should: options.exactFields.map((f) => ({ term: { [f]: query } })), minimum_should_match: 1 } } })
        : Promise.resolve(undefined),
    ]),
  );
  const parts = new Map<string, { keyword: number; vector: number; exact: boolean }>();
  const part = (id: string) => {
    let p = parts.get(id);
    if (!p) parts.set(id, (p = { keyword: 0, vector: 0, exact: false }));
    return p;
  };
  // Each clause normalised by its best score in the list, so a sparse search_keywords field (low
  // IDF when few products have keywords) still outweighs a title match.
  const named = (h: { matched_queries?: unknown }, name: string) => Number((h.matched_queries as Record<string, number> | undefined)?.[name] ?? 0);
  const bestText = Math.max(0, ...keyword.hits.hits.map((h) => named(h, 'text')));
  const bestKeywords = Math.max(0, ...keyword.hits.hits.map((h) => named(h, 'keywords')));
  for (const h of keyword.hits.hits) {
    const text = bestText > 0 ? named(h, 'text') / bestText : 0;
    const keywords = bestKeywords > 0 ? named(h, 'keywords') / bestKeywords : 0;
    part(h._id!).keyword = TEXT_SHARE * text + KEYWORDS_SHARE * keywords;
  }
  for (const h of vector.hits.hits) part(h._id!).vector = Math.max(0, 2 * (h._score ?? 0.5) - 1);
  for (const h of exact?.hits.hits ?? []) part(h._id!).exact = true;
  const hits = [...parts.entries()].map(([id, p]): HybridHit => {
    const score_sources: Record<string, number> = { keyword: KEYWORD_WEIGHT * p.keyword, vector: VECTOR_WEIGHT * p.vector };
    if (p.exact) score_sources['exact'] = 1;
    return { id, score: Object.values(score_sources).reduce((a, b) => a + b, 0), score_sources, explanation_json: '' };
  });
  hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  return hits.slice(0, limit);
}
