import type { Client, estypes } from '@elastic/elasticsearch';
import { PRODUCT_VECTOR_FIELDS, type ProductVectorField } from './search-defaults';
import { withElasticsearch } from './es-errors';
import { copyPreference } from './copy-preference';
import { numCandidates } from './knn';
import { productVectorPath } from './mappings';
import type { HitSources } from './hit-sources';

export interface StoredProduct {
  id: string;
  /** The indexed version (the product's MongoDB version: the index's external version). */
  version?: number;
  source: Record<string, unknown>;
}

/**
 * The index keeps vectors out of `_source` (Elasticsearch's default, exclude_source_vectors):
 * a read that needs them asks for them by name, and they are rebuilt from the vector index.
 */
const WITH_VECTORS = { querystring: { _source_exclude_vectors: false } };

const foundDocs = (docs: estypes.MgetResponseItem<Record<string, unknown>>[]) =>
  (docs.filter((d) => 'found' in d && d.found) as estypes.GetGetResult<Record<string, unknown>>[]).map((d) => ({
    id: d._id,
    ...(d._version !== undefined ? { version: d._version } : {}),
    source: d._source ?? {},
  }));

/** The anchors that exist, with their tenant, version and the vectors of `fields` (found by id, whatever the tenant). */
export async function readAnchors(
  es: Client,
  index: string,
  ids: string[],
  fields: readonly ProductVectorField[] = PRODUCT_VECTOR_FIELDS,
): Promise<StoredProduct[]> {
  const res = await withElasticsearch(() =>
    es.mget<Record<string, unknown>>(
      { index, ids, _source_includes: ['tenant_id', ...fields.map(productVectorPath)] },
      WITH_VECTORS,
    ),
  );
  return foundDocs(res.docs);
}

/**
 * Up to `limit` of the tenant's products with their version and the vectors of `field`, read in
 * pages of `pages.size` (a scroll), `pages.between` awaited between two: what a read path keeps
 * so that an anchor it has not been asked about before needs no read of its own. Stops early
 * when `keep` returns false.
 */
export async function readTenantAnchors(
  es: Client,
  index: string,
  tenantId: string,
  field: ProductVectorField,
  limit: number,
  keep: (anchor: StoredProduct & { index: string }) => boolean,
  pages: { size: number; between?: () => Promise<void> } = { size: 100 },
  /** More `_source` fields read beside the tenant and the vector (a read path's hit fields, kept by version). */
  moreFields: readonly string[] = [],
): Promise<number> {
  let read = 0;
  let page = await withElasticsearch(() =>
    es.search<Record<string, unknown>>({
      index,
      scroll: '30s',
      size: Math.min(pages.size, limit),
      version: true,
      query: { term: { tenant_id: tenantId } },
      // In the body: the querystring's _source_exclude_vectors would replace these includes (all vectors back).
      _source: { includes: ['tenant_id', productVectorPath(field), ...moreFields], exclude_vectors: false },
    }),
  );
  const scrollId = () => page._scroll_id;
  try {
    for (;;) {
      for (const h of page.hits.hits) {
        if (read >= limit) return read;
        read += 1;
        const anchor = {
          index: h._index,
          id: h._id!,
          ...(h._version !== undefined ? { version: h._version } : {}),
          source: h._source ?? {},
        };
        if (!keep(anchor)) return read;
      }
      const id = scrollId();
      if (page.hits.hits.length === 0 || !id || read >= limit) return read;
      await pages.between?.();
      page = await withElasticsearch(() => es.scroll<Record<string, unknown>>({ scroll_id: id, scroll: '30s' }));
    }
  } finally {
    const id = scrollId();
    if (id) await es.clearScroll({ scroll_id: id }).catch(() => undefined);
  }
}

/** The anchors that exist, with their tenant and version only: whether vectors kept from an earlier read still hold. */
export async function readAnchorVersions(es: Client, index: string, ids: string[]): Promise<StoredProduct[]> {
  const res = await withElasticsearch(() =>
    es.mget<Record<string, unknown>>({ index, ids, _source_includes: ['tenant_id'] }),
  );
  return foundDocs(res.docs);
}

/** What a similar search filters on; with only tenantId, the tenant-only pass `explain` counts against. */
export interface SimilarFilter {
  tenantId: string;
  siteId?: string | null;
  language?: string | null;
  excludedIds?: string[];
  excludeParents?: boolean;
}

function filterQuery(f: SimilarFilter): estypes.QueryDslQueryContainer {
  const tenant: estypes.QueryDslQueryContainer = { term: { tenant_id: f.tenantId } };
  if (!f.excludedIds) return tenant;
  const filter: estypes.QueryDslQueryContainer[] = [tenant];
  if (f.siteId) filter.push({ term: { site_id: f.siteId } });
  if (f.language) filter.push({ term: { language: f.language } });
  const mustNot: estypes.QueryDslQueryContainer[] = [{ ids: { values: f.excludedIds } }];
  if (f.excludeParents) mustNot.push({ term: { is_parent: true } });
  return { bool: { filter, must_not: mustNot } };
}

/** The `_source` fields a kNN hit carries (what collapsing and explain read, then `sourceFields`): what HitSources keep. */
export const hitSourceFields = (sourceFields: readonly string[] = []) => [
  'site_id',
  'language',
  'is_parent',
  'parent_product_id',
  ...sourceFields,
];

/**
 * kNN around each field's centroid (one clause per field, `k` neighbours each), every filter
 * inside the query. The hits carry what explain and collapsing read, plus the field vectors
 * when `withVectors` (several fields: the exact weighted sum is computed from them).
 */
export async function knnNeighbours(
  es: Client,
  q: {
    index: string;
    centroids: Map<ProductVectorField, Float64Array>;
    k: number;
    filter: SimilarFilter;
    withVectors: boolean;
    /** More `_source` fields each hit carries back (the read path's `hit`). */
    sourceFields?: readonly string[];
    /** Sources kept by version (not with vectors): while most hits are kept, Elasticsearch sends ids, scores and versions only. */
    sources?: HitSources;
  },
): Promise<NeighbourHit[]> {
  const fields = [...q.centroids.keys()];
  const filter = filterQuery(q.filter);
  const includes = [...hitSourceFields(q.sourceFields), ...(q.withVectors ? fields.map(productVectorPath) : [])];
  const sources = q.withVectors ? undefined : q.sources;
  const lean = sources?.lean(q.index) ?? false;
  // The filter and the centroids define the request; not k, which widens from round to round.
  const preference = copyPreference(
    q.index,
    JSON.stringify(filter),
    ...fields,
    ...fields.map((f) => q.centroids.get(f)!),
  );
  const out = await withElasticsearch(() =>
    es.search<Record<string, unknown>>({
      index: q.index,
      preference,
      size: q.k * fields.length,
      knn: fields.map((f) => ({
        field: productVectorPath(f),
        query_vector: Array.from(q.centroids.get(f)!),
        k: q.k,
        num_candidates: numCandidates(q.k),
        filter,
      })),
      ...(sources ? { version: true } : {}),
      _source: lean ? false : { includes, ...(q.withVectors ? { exclude_vectors: false } : {}) },
    }),
  );
  const hits = out.hits.hits;
  if (!sources) return hits.map((h) => ({ id: h._id!, score: h._score, source: h._source ?? {} }));
  return keptSources(es, sources, { alias: q.index, includes, lean }, hits);
}

/** A kNN hit: its id, Elasticsearch's score, and the `_source` fields asked for. */
export interface NeighbourHit {
  id: string;
  score: number | null | undefined;
  source: Record<string, unknown>;
}

/**
 * The hits with their sources: kept ones at the version Elasticsearch reported, the others from
 * the answer (`lean` false) or read by id at the version the index holds now (a document gone
 * meanwhile is no hit). Every source read is kept; the alias's miss rate learns how many were not.
 */
async function keptSources(
  es: Client,
  sources: HitSources,
  q: { alias: string; includes: string[]; lean: boolean },
  hits: estypes.SearchHit<Record<string, unknown>>[],
): Promise<NeighbourHit[]> {
  const found: (NeighbourHit | undefined)[] = [];
  const unread: number[] = [];
  let missing = 0;
  hits.forEach((h, i) => {
    const version = h._version;
    const kept = version === undefined ? undefined : sources.get(h._index, h._id!, version);
    if (!kept) missing += 1;
    if (kept) found[i] = { id: h._id!, score: h._score, source: kept };
    else if (!q.lean) {
      const source = h._source ?? {};
      if (version !== undefined) sources.set(h._index, h._id!, version, source);
      found[i] = { id: h._id!, score: h._score, source };
    } else unread.push(i);
  });
  sources.observe(q.alias, hits.length, missing);
  if (unread.length) {
    const res = await withElasticsearch(() =>
      es.mget<Record<string, unknown>>({
        docs: unread.map((i) => ({ _index: hits[i]!._index, _id: hits[i]!._id! })),
        _source_includes: q.includes,
      }),
    );
    res.docs.forEach((d, j) => {
      if (!('found' in d) || !d.found) return;
      const i = unread[j]!;
      const source = d._source ?? {};
      if (d._version !== undefined) sources.set(d._index, d._id, d._version, source);
      found[i] = { id: d._id, score: hits[i]!._score, source };
    });
  }
  return found.filter((h): h is NeighbourHit => h !== undefined);
}
