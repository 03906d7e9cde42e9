import { ConfigError, createLogger, handleProcessSignals } from '@kb/common';
import { loadCatalogConfig } from './config';
import { startCatalogServer } from './server';

async function main(): Promise<void> {
  let config;
  try {
    config = loadCatalogConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`catalog: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger('catalog', config.LOG_LEVEL);
  const server = await startCatalogServer(config, logger);
  handleProcessSignals(logger, () => server.stop());
}

void main();
