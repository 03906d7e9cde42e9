import { runService } from '@kb/platform';
import { loadKnowledgeConfig } from './config';
import { startKnowledgeServer } from './server';

runService('knowledge', () => loadKnowledgeConfig(), startKnowledgeServer);
