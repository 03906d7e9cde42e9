import { runService } from '@kb/platform';
import { loadCatalogConfig } from './config';
import { startCatalogServer } from './server';

runService('catalog', () => loadCatalogConfig(), startCatalogServer);
