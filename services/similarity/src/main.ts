import { runService } from '@kb/common';
import { loadSimilarityConfig } from './config';
import { startSimilarityServer } from './server';

runService('similarity', () => loadSimilarityConfig(), startSimilarityServer);
