export { startKnowledgeServer, KNOWLEDGE_SERVICE_NAME, type KnowledgeServer } from './server';
export { loadKnowledgeConfig, KnowledgeConfigSchema, type KnowledgeConfig } from './config';
export * from './admin';
export { KNOWLEDGE_QUERIES, KNOWLEDGE_CROSS_TENANT_INDEXES, knowledgeCollections } from './data-access/queries';
