export { startKnowledgeServer, KNOWLEDGE_SERVICE_NAME, type KnowledgeServer } from './server';
export { loadKnowledgeConfig, KnowledgeConfigSchema, type KnowledgeConfig } from './config';
export { runAdmin, UsageError, USAGE as ADMIN_USAGE } from './admin/cli';
export { main as adminMain } from './admin/cli';
