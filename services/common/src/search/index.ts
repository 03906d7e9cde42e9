// `@kb/common/search`: the search library shared by the similarity service (which writes and
// searches the indices) and the gateway's read path (which searches them directly). Apart from
// the main entry so that the services without Elasticsearch never load its client.
export * from './elasticsearch';
export * from './es-errors';
export * from './index-names';
export * from './knn';
export * from './mappings';
export * from './similar-products';
export * from './similar-queries';
export * from './hit-sources';
export * from './similar-scoring';
export * from './vectors';
export * from './search-queries';
export * from './hybrid-ranking';
export * from './entry-queries';
export * from './entry-ranking';
