import { createLogger, handleProcessSignals, ConfigError } from '@kb/common';
import { loadKnowledgeConfig } from './config';
import { startKnowledgeServer } from './server';

async function main(): Promise<void> {
  let config;
  try {
    config = loadKnowledgeConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`knowledge: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger('knowledge', config.LOG_LEVEL);
  const server = await startKnowledgeServer(config, logger);
  handleProcessSignals(logger, () => server.stop());
}

void main();
