import type { ElasticsearchClient } from '@kb/search';
import type { IndexManager } from '../data-access/index-manager';
import type { EmbeddingCache } from './embedding-cache';

/** What the use cases that read or write the indices need. */
export interface IndexDeps {
  es: ElasticsearchClient;
  indices: IndexManager;
}

/** What the use cases that embed texts (through the cache) need on top. */
export interface EmbeddingDeps extends IndexDeps {
  cache: EmbeddingCache;
}
