import { runService } from '@kb/platform';
import { loadSimilarityConfig } from './config';
import { startSimilarityServer } from './server';

runService('similarity', () => loadSimilarityConfig(), startSimilarityServer);
