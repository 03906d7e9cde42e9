import { ConfigError, createLogger, handleProcessSignals } from '@kb/common';
import { loadSimilarityConfig } from './config';
import { startSimilarityServer } from './server';

async function main(): Promise<void> {
  let config;
  try {
    config = loadSimilarityConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`similarity: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger('similarity', config.LOG_LEVEL);
  const server = await startSimilarityServer(config, logger);
  handleProcessSignals(logger, () => server.stop());
}

void main();
