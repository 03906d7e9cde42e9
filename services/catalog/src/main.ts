import { runService } from '@kb/common';
import { loadCatalogConfig } from './config';
import { startCatalogServer } from './server';

runService('catalog', () => loadCatalogConfig(), startCatalogServer);
