import type { estypes } from '@elastic/elasticsearch';
import { CACHE_REFRESH_INTERVAL, SEARCH_REFRESH_INTERVAL, type VectorIndexType } from './mappings';

/**
 * How the service's indices are spread over the cluster: primary shards (fixed at creation, so a
 * change takes a reindex) and replicas, a count or an auto-expand range (`0-1`: no replica on a
 * single data node, one as soon as a second exists; `0-all`: a copy on every data node); and how
 * a new index keeps its vectors.
 */
export interface IndexLayout {
  shards: number;
  replicas: string;
  /** How the vectors of a new products or entries index are indexed (mappings.ts; default `hnsw`). */
  vectors?: VectorIndexType;
}

/**
 * One primary shard (the indices of one install are small, and every shard adds a kNN search of
 * its own) and a replica wherever the cluster has a second data node.
 */
export const DEFAULT_INDEX_LAYOUT: IndexLayout = { shards: 1, replicas: '0-1' };

/** A replica count (`1`) or an auto-expand range (`0-1`, `1-all`): what ELASTICSEARCH_REPLICAS accepts. */
export const REPLICAS_PATTERN = '^(0|[1-9][0-9]{0,2})(-(0|[1-9][0-9]{0,2}|all))?$';
export const REPLICAS_EXPECTED = 'a replica count (e.g. 1) or an auto-expand range (e.g. 0-1, 0-all)';

/** What is wrong with a replicas value (undefined: nothing): the pattern, and a range's bounds in order. */
export function replicasProblem(replicas: string): string | undefined {
  if (!new RegExp(REPLICAS_PATTERN).test(replicas)) return `must be ${REPLICAS_EXPECTED}`;
  const [low, high] = replicas.split('-');
  if (high !== undefined && high !== 'all' && Number(high) < Number(low))
    return 'must be a range whose lower bound is not above its upper bound (e.g. 0-1)';
  return undefined;
}

/**
 * The replica settings of `replicas`: a range switches auto-expand on; a count switches it off
 * (an index created with a range would otherwise keep expanding over the count).
 */
export function replicaSettings(replicas: string): estypes.IndicesIndexSettings {
  return (
    replicas.includes('-')
      ? { 'index.auto_expand_replicas': replicas }
      : { 'index.auto_expand_replicas': 'false', 'index.number_of_replicas': Number(replicas) }
  ) as estypes.IndicesIndexSettings;
}

/**
 * Settings of a new products or entries index (at creation and at every reindex). gc_deletes 1h
 * (default 60 s): a delete's tombstone, which makes an older write arriving late `stale` instead
 * of bringing the document back, is kept well past any indexer retry. Refreshed every
 * SEARCH_REFRESH_INTERVAL (see mappings.ts).
 */
export function searchIndexSettings(layout: IndexLayout = DEFAULT_INDEX_LAYOUT): estypes.IndicesIndexSettings {
  return {
    'index.number_of_shards': layout.shards,
    ...replicaSettings(layout.replicas),
    'index.gc_deletes': '1h',
    'index.refresh_interval': SEARCH_REFRESH_INTERVAL,
  } as estypes.IndicesIndexSettings;
}

/** Settings of the embedding cache index: the same layout, refreshed every CACHE_REFRESH_INTERVAL. */
export function cacheIndexSettings(layout: IndexLayout = DEFAULT_INDEX_LAYOUT): estypes.IndicesIndexSettings {
  return {
    ...searchIndexSettings(layout),
    'index.refresh_interval': CACHE_REFRESH_INTERVAL,
  } as estypes.IndicesIndexSettings;
}
