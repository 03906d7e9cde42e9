/**
 * @kb/indexing: Keeping a search index in step with MongoDB: the document indexer, the background
 * indexer loop, index errors and refusals, reindex.
 */
export * from './document-indexer';
export * from './index-errors';
export * from './index-refusals';
export * from './indexer-loop';
export * from './reindex';
