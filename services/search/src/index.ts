/**
 * @kb/search: Elasticsearch: the client, index names and mappings, product and similar search,
 * entry search (queries, ranking, retrieval spans).
 */
export * from './copy-preference';
export * from './elasticsearch';
export * from './entry-queries';
export * from './entry-ranking';
export * from './entry-search';
export * from './es-errors';
export * from './hit-sources';
export * from './hybrid-ranking';
export * from './index-names';
export * from './knn';
export * from './mappings';
export * from './retrieval';
export * from './search-defaults';
export * from './search-queries';
export * from './similar-products';
export * from './similar-queries';
export * from './similar-request';
export * from './similar-scoring';
export * from './vectors';
export * from './index-health';
export * from './index-settings';
