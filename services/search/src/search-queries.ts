import { type Client, type estypes, errors } from '@elastic/elasticsearch';
import type { similarityV1 } from '@kb/platform';
import { elasticsearchUnavailable, isElasticsearchUnavailable, withElasticsearch } from './es-errors';
import { copyPreference } from './copy-preference';
import { cosineOfScore, numCandidates } from './knn';
import { parseDateTime } from '@kb/rules';

/** A search's filter, built here and passed back unchanged. */
export type SearchFilter = estypes.QueryDslQueryContainer;

/** Which fields a hybrid search reads: text fields with boosts, search_keywords, the vector, exact-term fields. */
export interface SearchFields {
  textFields: string[];
  keywordField: string;
  vectorField: string;
  exactFields?: string[];
}

/** Title above the rest; search_keywords are scored on their own, above these (see rankHybrid). */
export const PRODUCT_SEARCH: SearchFields = {
  textFields: ['title^2', 'brand.text^1.5', 'category.text^1.5', 'description', 'short_description'],
  keywordField: 'search_keywords',
  vectorField: 'vector_description',
  exactFields: ['sku', 'gtin'],
};

export interface ProductFilterValues {
  site_id?: string | null;
  language?: string | null;
  brand?: string | null;
  category?: string | null;
  availability?: string | null;
  priceMin: number | undefined;
  priceMax: number | undefined;
  excludeParents: boolean;
}

/** A tenant's products with the given exact values and price range; parents left out on request. */
export function productFilter(tenantId: string, v: ProductFilterValues): SearchFilter {
  const filter: estypes.QueryDslQueryContainer[] = [{ term: { tenant_id: tenantId } }];
  for (const field of ['site_id', 'language', 'brand', 'category', 'availability'] as const) {
    const value = v[field];
    if (value) filter.push({ term: { [field]: value } });
  }
  const { priceMin: min, priceMax: max } = v;
  if (min !== undefined || max !== undefined)
    filter.push({
      range: {
        price_current: { ...(min !== undefined ? { gte: min } : {}), ...(max !== undefined ? { lte: max } : {}) },
      },
    });
  const mustNot: estypes.QueryDslQueryContainer[] = v.excludeParents ? [{ term: { is_parent: true } }] : [];
  return { bool: { filter, must_not: mustNot } };
}

/**
 * The EntryVisibilityFilter as a query: visibility in the list, or personal and owned by the
 * caller, or (when workspace-scoped) a workspace entry of one of the caller's workspaces.
 * `personal` in the list is ignored (only the owner clause can match a personal entry), and so
 * is `workspace` when workspace-scoped (only the workspace clause can match one then).
 */
function visibilityQuery(v: similarityV1.EntryVisibilityFilter__Output): SearchFilter {
  const listed = v.visibilities.filter((x) => x !== 'personal' && !(v.workspace_scoped && x === 'workspace'));
  const should: estypes.QueryDslQueryContainer[] = [];
  if (listed.length > 0) should.push({ terms: { visibility: listed } });
  if (v.owner_user_id)
    should.push({
      bool: { filter: [{ term: { visibility: 'personal' } }, { term: { owner_user_id: v.owner_user_id } }] },
    });
  if (v.workspace_scoped && v.workspace_ids.length > 0) {
    should.push({
      bool: { filter: [{ term: { visibility: 'workspace' } }, { terms: { workspace_id: v.workspace_ids } }] },
    });
  }
  // Nothing visible: a clause that matches no document.
  if (should.length === 0) return { bool: { must_not: [{ match_all: {} }] } };
  return { bool: { should, minimum_should_match: 1 } };
}

/** A tenant's entries the caller may see, of the given types, category, language, site, tags (any of) and changed after a time. */
export function entryFilter(
  tenantId: string,
  v: {
    visibility: similarityV1.EntryVisibilityFilter__Output;
    types: string[];
    category_id?: string | null;
    language?: string | null;
    site_id?: string | null;
    tags?: string[];
    updated_after?: string | null;
  },
): SearchFilter {
  const filter: estypes.QueryDslQueryContainer[] = [{ term: { tenant_id: tenantId } }, visibilityQuery(v.visibility)];
  if (v.types.length > 0) filter.push({ terms: { type: v.types } });
  if (v.category_id) filter.push({ term: { category_id: v.category_id } });
  if (v.language) filter.push({ term: { language: v.language } });
  if (v.site_id) filter.push({ term: { site_ids: v.site_id } });
  if (v.tags && v.tags.length > 0) filter.push({ terms: { tags: v.tags } });
  if (v.updated_after) {
    // As UTC, whatever form of date-time the caller wrote (the callers have checked it: isDateTime).
    const after = parseDateTime(v.updated_after);
    filter.push({
      range: { updated_at: { gt: after === undefined ? v.updated_after : new Date(after).toISOString() } },
    });
  }
  return { bool: { filter } };
}

/** What each half of a hybrid search found: raw BM25 per named clause, kNN cosines, exact-term ids. */
export interface HybridMatches {
  keyword: { id: string; text: number; keywords: number }[];
  vector: { id: string; cosine: number }[];
  exact: string[];
  /** Each hit's `_source` fields asked for by `sourceFields` (none asked: empty). */
  sources?: Map<string, Record<string, unknown>>;
}

/**
 * The three searches of a hybrid search, sent as one multi-search (one round trip): BM25 over
 * the text fields and search_keywords as two named clauses (their scores reported apart), kNN on
 * the query vector, and exact terms (when the kind has exact fields). Every one filtered inside
 * the query. A search that fails inside the multi-search fails the whole call, as its own
 * request would have.
 */
export async function hybridMatches(
  es: Client,
  q: {
    index: string;
    query: string;
    size: number;
    limit: number;
    filter: SearchFilter;
    fields: SearchFields;
    queryVector: Float32Array;
    /** `_source` fields each hit carries back (the gateway's read path asks for `hit`). */
    sourceFields?: readonly string[];
  },
): Promise<HybridMatches> {
  const { index, query, size, filter, fields } = q;
  const _source = q.sourceFields ? { includes: [...q.sourceFields] } : false;
  const searches: estypes.SearchSearchRequestBody[] = [
    { size, _source, query: keywordQuery(query, filter, fields) },
    {
      size,
      _source,
      knn: {
        field: fields.vectorField,
        query_vector: Array.from(q.queryVector),
        k: size,
        num_candidates: numCandidates(size),
        filter: [filter],
      },
    },
  ];
  if (fields.exactFields && fields.exactFields.length > 0) {
    searches.push({
      size: q.limit,
      _source,
      query: {
        bool: {
          filter: [filter],
          should: fields.exactFields.map((f) => ({ term: { [f]: query } })),
          minimum_should_match: 1,
        },
      },
    });
  }
  // The keyword search holds the query and the filter (the tenant's among them): what defines the request.
  const header = { preference: copyPreference(index, JSON.stringify(searches[0])) };
  // include_named_queries_score is the multi-search's: only the keyword search names queries.
  const res = await withElasticsearch(() =>
    es.msearch({ index, include_named_queries_score: true, searches: searches.flatMap((body) => [header, body]) }),
  );
  const [keyword, vector, exact] = res.responses.map((r) => {
    if ('error' in r) throw multiSearchError(r);
    return r.hits.hits;
  });
  const sources = new Map<string, Record<string, unknown>>();
  if (q.sourceFields)
    for (const h of [...keyword!, ...vector!, ...(exact ?? [])])
      if (h._source) sources.set(h._id!, h._source as Record<string, unknown>);
  const named = (h: { matched_queries?: unknown }, name: string) =>
    Number((h.matched_queries as Record<string, number> | undefined)?.[name] ?? 0);
  return {
    keyword: keyword!.map((h) => ({ id: h._id!, text: named(h, 'text'), keywords: named(h, 'keywords') })),
    vector: vector!.map((h) => ({ id: h._id!, cosine: cosineOfScore(h._score) })),
    exact: (exact ?? []).map((h) => h._id!),
    sources,
  };
}

/** One failed search of a multi-search as the error its own request would have thrown (an outage is UNAVAILABLE). */
export function multiSearchError(r: estypes.ErrorResponseBase): Error {
  const err = new errors.ResponseError({
    body: r,
    statusCode: r.status,
    headers: {},
    warnings: null,
    meta: {} as never,
  });
  return isElasticsearchUnavailable(err) ? elasticsearchUnavailable(err) : err;
}

function keywordQuery(query: string, filter: SearchFilter, fields: SearchFields): estypes.QueryDslQueryContainer {
  return {
    bool: {
      filter: [filter],
      should: [
        { multi_match: { query, fields: fields.textFields, type: 'best_fields', _name: 'text' } },
        { match: { [fields.keywordField]: { query, _name: 'keywords' } } },
      ],
      minimum_should_match: 1,
    },
  };
}
