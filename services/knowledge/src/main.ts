import { runService } from '@kb/common';
import { loadKnowledgeConfig } from './config';
import { startKnowledgeServer } from './server';

runService('knowledge', () => loadKnowledgeConfig(), startKnowledgeServer);
