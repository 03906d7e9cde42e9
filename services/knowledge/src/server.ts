import * as grpc from '@grpc/grpc-js';
import {
  balancingSettings,
  clientOptions,
  grpcTarget,
  callerSigner,
  serverAuthOf,
  type Logger,
  knowledgeProto,
  similarityProto,
  startGrpcServer,
  typedClient,
  type GrpcServerHandle,
} from '@kb/platform';
import { cachedTenantReads } from './data-access/cached-tenants';
import { mongoSettingsOf } from '@kb/mongo';
import { openKnowledgeStore } from './data-access/store';
import { entryUseCases } from './domain/entries';
import { entryIndexer } from './domain/indexer';
import type { KnowledgeConfig } from './config';
import { authenticationUseCases } from './domain/authentication';
import { categoryUseCases } from './domain/categories';
import { knowledgeServiceImpl } from './grpc/knowledge-service';

export const KNOWLEDGE_SERVICE_NAME = 'kb.knowledge.v1.KnowledgeService';

export interface KnowledgeServer {
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * Starts the knowledge service: gRPC on the configured port and MongoDB in the background.
 * Health: "dependency:mongodb" SERVING while MongoDB is reachable; "" SERVING from start to drain.
 */
export async function startKnowledgeServer(config: KnowledgeConfig, logger: Logger): Promise<KnowledgeServer> {
  let grpcServer: GrpcServerHandle | undefined;
  const store = openKnowledgeStore(
    config.MONGODB_URI,
    logger,
    (up) => {
      grpcServer?.health.setStatus('dependency:mongodb', up ? 'SERVING' : 'NOT_SERVING');
    },
    mongoSettingsOf(config),
  );
  const similarity = typedClient(
    'similarity',
    new (similarityProto().kb.similarity.v1.SimilarityService)(
      grpcTarget(config.SIMILARITY_GRPC_ADDR),
      grpc.credentials.createInsecure(),
      clientOptions(balancingSettings(config)),
    ),
    config.SIMILARITY_DEADLINE_MS,
    callerSigner({ secret: config.SERVICE_AUTH_SECRET }, 'knowledge'),
  );
  const { entries } = store;
  const indexer = entryIndexer({
    repo: entries,
    similarity,
    logger,
    intervalMs: config.INDEXER_INTERVAL_MS,
    immediateDeadlineMs: Math.min(config.INDEX_ON_WRITE_MS, config.SIMILARITY_DEADLINE_MS),
    isUp: () => store.isUp(),
  });
  const impl = knowledgeServiceImpl(
    {
      logger,
      authentication: authenticationUseCases(store.tenants, store.tokens),
      categories: categoryUseCases(store.categories, entries),
      entries: entryUseCases({
        entries,
        categories: store.categories,
        tenants: cachedTenantReads(store.tenants, config.TENANT_SETTINGS_CACHE_TTL_MS),
        transactions: store.transactions,
        indexer,
        similarity,
      }),
    },
    store.mapError,
    store.assertUp,
  );
  grpcServer = await startGrpcServer({
    host: config.GRPC_HOST,
    port: config.KNOWLEDGE_GRPC_PORT,
    maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS,
    maxConnectionAgeGraceMs: config.GRPC_MAX_CONNECTION_AGE_GRACE_MS,
    services: [{ definition: knowledgeProto().kb.knowledge.v1.KnowledgeService.service, implementation: impl }],
    serviceNames: [KNOWLEDGE_SERVICE_NAME],
    // ResolveTenant: the gateway's lookup of the tenant a request is addressed to, before it knows one.
    auth: serverAuthOf(config, 'knowledge', logger, { tenantless: ['ResolveTenant'] }),
  });
  const up = store.isUp();
  grpcServer.health.setStatus('dependency:mongodb', up ? 'SERVING' : 'NOT_SERVING');
  grpcServer.setLive();
  logger.info({ port: grpcServer.port }, 'knowledge service listening');
  const server = grpcServer;
  // Also observes the backlog metrics until it stops.
  indexer.start();
  return {
    port: server.port,
    async stop() {
      // The running pass uses the similarity client and MongoDB: it ends before they close.
      await indexer.stop();
      await server.shutdown();
      similarity.close();
      await store.close();
    },
  };
}
