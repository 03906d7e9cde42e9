import { runService } from '@kb/platform';
import { loadGatewayConfig } from './config';
import { connectBackends } from './clients/backends';
import { startGateway } from './server';

runService(
  'gateway',
  () => loadGatewayConfig(),
  async (config, logger) => {
    const backends = connectBackends(config, logger);
    const gateway = await startGateway(config, backends, logger);
    return {
      async stop() {
        await gateway.stop();
        backends.close();
      },
    };
  },
);
