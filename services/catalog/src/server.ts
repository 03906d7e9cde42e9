import { type Logger, catalogProto, connectMongo, startGrpcServer, type GrpcServerHandle } from '@kb/common';
import type { CatalogConfig } from './config';
import { sitesRepo, type SitesRepo } from './data-access/sites-repo';
import { catalogServiceImpl } from './grpc/catalog-service';

export const CATALOG_SERVICE_NAME = 'kb.catalog.v1.CatalogService';

export interface CatalogServer {
  readonly port: number;
  stop(): Promise<void>;
}

/** Starts the catalog service; health follows MongoDB ("dependency:mongodb"). */
export async function startCatalogServer(config: CatalogConfig, logger: Logger): Promise<CatalogServer> {
  let grpcServer: GrpcServerHandle | undefined;
  const report = (up: boolean) => {
    grpcServer?.health.setStatus('dependency:mongodb', up ? 'SERVING' : 'NOT_SERVING');
    grpcServer?.setServing(up ? 'SERVING' : 'NOT_SERVING');
  };
  let sites: SitesRepo | undefined;
  const mongo = connectMongo(config.MONGODB_URI, logger, { onChange: report, prepare: () => (sites as SitesRepo).ensureIndexes().then(() => undefined) });
  sites = sitesRepo(mongo.connection);
  grpcServer = await startGrpcServer({
    host: config.GRPC_HOST,
    port: config.CATALOG_GRPC_PORT,
    services: [
      {
        definition: catalogProto().kb.catalog.v1.CatalogService.service,
        implementation: catalogServiceImpl({ logger, sites }),
      },
    ],
    serviceNames: [CATALOG_SERVICE_NAME],
  });
  report(mongo.isUp());
  logger.info({ port: grpcServer.port }, 'catalog service listening');
  const server = grpcServer;
  return {
    port: server.port,
    async stop() {
      await server.shutdown();
      await mongo.close();
    },
  };
}
