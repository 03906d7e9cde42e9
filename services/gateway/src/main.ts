import { ConfigError, createLogger, handleProcessSignals } from '@kb/common';
import { loadGatewayConfig } from './config';
import { connectBackends } from './clients/backends';
import { startGateway } from './server';

async function main(): Promise<void> {
  let config;
  try {
    config = loadGatewayConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`gateway: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const backends = connectBackends(config);
  try {
    const gateway = await startGateway(config, backends, logger);
    handleProcessSignals(logger, async () => {
      await gateway.stop();
      backends.close();
    });
  } catch (err) {
    logger.fatal({ err: (err as Error).message }, 'gateway failed to start');
    process.stderr.write(`gateway: ${(err as Error).message}\n`);
    process.exit(1);
  }
}

void main();
