/**
 * The raw Elasticsearch side of every comparison: the same requests the read path sends (same
 * vectors, filters, k, num_candidates, sizes, `_source` fields), straight from this process.
 */
import { Client, type estypes } from '@elastic/elasticsearch';
import {
  elasticsearchNodes,
  fusionCandidates,
  numCandidates,
  PRODUCT_VECTOR_FIELDS as VECTOR_FIELDS,
  productVectorPath as vectorPath,
  type ProductVectorField as VectorField,
} from '@kb/search';

const SOURCE_FIELDS = ['site_id', 'language', 'is_parent', 'parent_product_id', 'hit'];

export function rawClient(url: string): Client {
  return new Client({ nodes: elasticsearchNodes(url) });
}

export function aliases(model: { name: string; dims: number }, prefix = 'kb') {
  const slug = model.name.toLowerCase().replace(/[^a-z0-9]/g, '-');
  return {
    products: `${prefix}-products-${slug}-${model.dims}`,
    entries: `${prefix}-entries-${slug}-${model.dims}`,
    // The similarity service's embedding cache (aliasName(prefix, 'embeddings', …) in @kb/search).
    embeddings: `${prefix}-embeddings-${slug}-${model.dims}`,
  };
}

/** Mean of unit vectors (weights 1), normalised: the centroid the service computes. */
export function centroid(vectors: number[][]): number[] {
  const dims = vectors[0]!.length;
  const sum = new Float64Array(dims);
  for (const v of vectors) {
    const n = Math.hypot(...v);
    for (let d = 0; d < dims; d++) sum[d]! += v[d]! / n;
  }
  const n = Math.hypot(...sum);
  return Array.from(sum, (x) => x / n);
}

export function similarFilter(tenant: string, excluded: string[]): estypes.QueryDslQueryContainer {
  return { bool: { filter: [{ term: { tenant_id: tenant } }], must_not: [{ ids: { values: excluded } }] } };
}

/** kNN per field around its centroid, k each, num_candidates max(200, 2k): one request, as the service sends it. */
export async function rawSimilar(
  es: Client,
  index: string,
  centroids: Map<VectorField, number[]>,
  k: number,
  filter: estypes.QueryDslQueryContainer,
): Promise<string[]> {
  const fields = [...centroids.keys()];
  const res = await es.search({
    index,
    size: k * fields.length,
    knn: fields.map((f) => ({
      field: vectorPath(f),
      query_vector: centroids.get(f)!,
      k,
      num_candidates: numCandidates(k),
      filter,
    })),
    // Vectors are out of _source unless asked for (exclude_source_vectors), as the read path asks.
    _source: {
      includes: [...SOURCE_FIELDS, ...(fields.length > 1 ? fields.map(vectorPath) : [])],
      ...(fields.length > 1 ? { exclude_vectors: false } : {}),
    },
  });
  return res.hits.hits.map((h) => h._id!);
}

/** The keyword, vector and exact-term searches of a hybrid product or entry search, as the service sends them: one multi-search. */
export async function rawHybrid(
  es: Client,
  q: {
    index: string;
    query: string;
    vector: number[];
    filter: estypes.QueryDslQueryContainer;
    textFields: string[];
    vectorField: string;
    exactFields?: string[];
    sourceFields?: string[];
    limit: number;
  },
): Promise<void> {
  const size = fusionCandidates(q.limit);
  const _source = q.sourceFields ? { includes: q.sourceFields } : false;
  const searches: estypes.SearchSearchRequestBody[] = [
    {
      size,
      _source,
      query: {
        bool: {
          filter: [q.filter],
          should: [
            { multi_match: { query: q.query, fields: q.textFields, type: 'best_fields', _name: 'text' } },
            { match: { search_keywords: { query: q.query, _name: 'keywords' } } },
          ],
          minimum_should_match: 1,
        },
      },
    },
    {
      size,
      _source,
      knn: {
        field: q.vectorField,
        query_vector: q.vector,
        k: size,
        num_candidates: numCandidates(size),
        filter: [q.filter],
      },
    },
  ];
  if (q.exactFields)
    searches.push({
      size: q.limit,
      _source,
      query: {
        bool: {
          filter: [q.filter],
          should: q.exactFields.map((f) => ({ term: { [f]: q.query } })),
          minimum_should_match: 1,
        },
      },
    });
  const res = await es.msearch({
    index: q.index,
    include_named_queries_score: true,
    searches: searches.flatMap((body) => [{}, body]),
  });
  for (const r of res.responses) if ('error' in r) throw new Error(JSON.stringify(r.error));
}

/** Every product of the tenant with its vectors (for brute force), paged by search_after. */
export async function allProductVectors(
  es: Client,
  index: string,
  tenant: string,
): Promise<Map<string, Record<VectorField, number[]>>> {
  const out = new Map<string, Record<VectorField, number[]>>();
  let res = await es.search<Record<string, number[]>>({
    index,
    size: 1000,
    scroll: '1m',
    query: { term: { tenant_id: tenant } },
    _source: { includes: VECTOR_FIELDS.map(vectorPath), exclude_vectors: false },
  });
  for (;;) {
    const hits = res.hits.hits;
    for (const h of hits) {
      const s = h._source ?? {};
      out.set(
        h._id!,
        Object.fromEntries(VECTOR_FIELDS.map((f) => [f, s[vectorPath(f)]])) as Record<VectorField, number[]>,
      );
    }
    if (hits.length === 0 || !res._scroll_id) break;
    res = await es.scroll<Record<string, number[]>>({ scroll_id: res._scroll_id, scroll: '1m' });
  }
  if (res._scroll_id) await es.clearScroll({ scroll_id: res._scroll_id });
  return out;
}

/** Exact top `k` by the weighted sum of cosines against the centroids, excluded ids left out. */
export function bruteForce(
  all: Map<string, Record<VectorField, number[]>>,
  centroids: Map<VectorField, number[]>,
  weights: Map<VectorField, number>,
  excluded: Set<string>,
  k: number,
): string[] {
  const scored: { id: string; score: number }[] = [];
  for (const [id, vectors] of all) {
    if (excluded.has(id)) continue;
    let score = 0;
    for (const [field, c] of centroids) {
      const v = vectors[field];
      if (!v) continue;
      let dot = 0;
      let norm = 0;
      for (let d = 0; d < c.length; d++) {
        dot += c[d]! * v[d]!;
        norm += v[d]! * v[d]!;
      }
      score += weights.get(field)! * (dot / Math.sqrt(norm));
    }
    scored.push({ id, score });
  }
  scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  return scored.slice(0, k).map((s) => s.id);
}

export const overlap = (a: string[], b: string[]) =>
  a.length === 0 ? 0 : a.filter((id) => b.includes(id)).length / Math.max(a.length, b.length);
