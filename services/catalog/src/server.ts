import * as grpc from '@grpc/grpc-js';
import {
  type Logger,
  balancingSettings,
  clientOptions,
  grpcTarget,
  callerSigner,
  catalogProto,
  serverAuthOf,
  similarityProto,
  startGrpcServer,
  typedClient,
  type GrpcServerHandle,
} from '@kb/platform';
import type { CatalogConfig } from './config';
import { mongoSettingsOf } from '@kb/mongo';
import { openCatalogStore } from './data-access/store';
import { catalogServiceImpl } from './grpc/catalog-service';
import { PRODUCTS_PER_CALL, startIndexer } from './domain/indexer';
import type { CatalogDeps } from './domain/products';

export const CATALOG_SERVICE_NAME = 'kb.catalog.v1.CatalogService';

export interface CatalogServer {
  readonly port: number;
  /** One pass of the background indexer now (tests); resolves to the number of items done. */
  indexPending(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts the catalog service; "dependency:mongodb" follows MongoDB, "" is SERVING from start to drain. */
export async function startCatalogServer(config: CatalogConfig, logger: Logger): Promise<CatalogServer> {
  let grpcServer: GrpcServerHandle | undefined;
  const report = (up: boolean) => {
    grpcServer?.health.setStatus('dependency:mongodb', up ? 'SERVING' : 'NOT_SERVING');
  };
  const store = openCatalogStore(config.MONGODB_URI, logger, report, mongoSettingsOf(config));
  const { sites, products } = store;
  const similarityClient = new (similarityProto().kb.similarity.v1.SimilarityService)(
    grpcTarget(config.SIMILARITY_GRPC_ADDR),
    grpc.credentials.createInsecure(),
    clientOptions(balancingSettings(config)),
  );
  const deps: CatalogDeps = {
    logger,
    sites,
    products,
    similarity: typedClient(
      'similarity',
      similarityClient,
      config.SIMILARITY_DEADLINE_MS,
      callerSigner({ secret: config.SERVICE_AUTH_SECRET }, 'catalog'),
    ),
    indexOnWriteMs: config.INDEX_ON_WRITE_MS,
  };
  grpcServer = await startGrpcServer({
    host: config.GRPC_HOST,
    port: config.CATALOG_GRPC_PORT,
    maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS,
    maxConnectionAgeGraceMs: config.GRPC_MAX_CONNECTION_AGE_GRACE_MS,
    services: [
      {
        definition: catalogProto().kb.catalog.v1.CatalogService.service,
        implementation: catalogServiceImpl(deps, store.mapError, store.assertUp),
      },
    ],
    serviceNames: [CATALOG_SERVICE_NAME],
    auth: serverAuthOf(config, 'catalog', logger),
  });
  report(store.isUp());
  // Also observes the backlog metrics until it stops.
  const indexer = startIndexer(deps, config.INDEXER_INTERVAL_MS, PRODUCTS_PER_CALL, () => store.isUp());
  grpcServer.setLive();
  logger.info({ port: grpcServer.port }, 'catalog service listening');
  const server = grpcServer;
  return {
    port: server.port,
    indexPending: () => indexer.runOnce(),
    async stop() {
      await indexer.stop();
      await server.shutdown();
      similarityClient.close();
      await store.close();
    },
  };
}
