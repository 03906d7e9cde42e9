import type { Client } from '@elastic/elasticsearch';
import { INDEX_KINDS, withElasticsearch, type IndexKind } from '@kb/search';

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
      // conflicts: proceed — a document the indexer rewrites meanwhile is deleted by the next purge.
      const res = await withElasticsearch(() =>
        es.deleteByQuery({ index, query, conflicts: 'proceed', refresh: true, slices: 'auto' }),
      );
      counts.push({ index, kind, documents: res.deleted ?? 0 });
    }
  }
  return counts;
}
