export { startSimilarityServer, SIMILARITY_SERVICE_NAME, type SimilarityServer } from './server';
export { loadSimilarityConfig, SimilarityConfigSchema, type SimilarityConfig } from './config';
