export { startSimilarityServer, SIMILARITY_SERVICE_NAME, type SimilarityServer } from './server';
export { loadSimilarityConfig, SimilarityConfigSchema, type SimilarityConfig } from './config';
// For the benchmark and the evaluation (tools/), which embed and build entry texts as the service does.
export { modelFilesIn, OnnxEmbedder, type OnnxEmbedderOptions } from './embedder';
export { passageVectorText, sentenceContextText, sentencesOfPassages, topicVectorText } from './domain/index-entries';
