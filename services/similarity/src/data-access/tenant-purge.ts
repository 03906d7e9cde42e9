import type { Client, estypes } from '@elastic/elasticsearch';
import { INDEX_KINDS, withElasticsearch, type IndexKind } from '@kb/search';

/** Documents deleted per bulk request. */
const PAGE = 1000;

/**
 * Deletes every document of `index` that `query` matches, a page of ids at a time (search, bulk
 * delete, refresh): `_delete_by_query` lives in Elasticsearch's reindex module, which the local
 * integration-test distribution does not ship. Answers how many were deleted.
 */
async function deleteMatching(es: Client, index: string, query: estypes.QueryDslQueryContainer): Promise<number> {
  let deleted = 0;
  for (;;) {
    const page = await withElasticsearch(() =>
      es.search({ index, query, size: PAGE, _source: false, sort: ['_doc'], track_total_hits: false }),
    );
    const ids = page.hits.hits.flatMap((h) => (h._id ? [h._id] : []));
    if (ids.length === 0) return deleted;
    const res = await withElasticsearch(() =>
      es.bulk({ refresh: true, operations: ids.map((_id) => ({ delete: { _index: index, _id } })) }),
    );
    const failed = res.items.filter((i) => i.delete?.error && i.delete.status !== 404);
    if (failed.length > 0)
      throw new Error(
        `${failed.length} documents of ${index} could not be deleted: ${failed[0]?.delete?.error?.reason}`,
      );
    deleted += ids.length;
  }
}

/** One index holding documents of the purged tenant, and how many. */
export interface TenantIndexCount {
  index: string;
  kind: IndexKind;
  documents: number;
}

/**
 * The tenant's documents in every index of this install's prefix, per kind: behind the alias,
 * reindex targets not yet swapped in, and the indices of other models (a model switch leaves
 * them until a reindex removes them). The embedding caches (`<prefix>-embeddings-*`) hold no
 * tenant: they are keyed by model and text hash, shared by every tenant.
 */
export async function purgeTenantDocuments(
  es: Client,
  prefix: string,
  tenantId: string,
  dryRun: boolean,
): Promise<TenantIndexCount[]> {
  const query = { term: { tenant_id: tenantId } };
  const counts: TenantIndexCount[] = [];
  for (const kind of INDEX_KINDS) {
    const indices = await withElasticsearch(() =>
      es.cat.indices({ index: `${prefix}-${kind}-*`, h: 'index', format: 'json', expand_wildcards: 'open' }),
    );
    for (const index of indices.flatMap((i) => (i.index ? [i.index] : [])).sort()) {
      if (dryRun) {
        const { count } = await withElasticsearch(() => es.count({ index, query }));
        counts.push({ index, kind, documents: count });
        continue;
      }
      counts.push({ index, kind, documents: await deleteMatching(es, index, query) });
    }
  }
  return counts;
}
