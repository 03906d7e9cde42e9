import * as grpc from '@grpc/grpc-js';
import {
  CLIENT_OPTIONS,
  type Logger,
  type MongoHandle,
  connectMongo,
  knowledgeProto,
  similarityProto,
  startGrpcServer,
  typedClient,
  type GrpcServerHandle,
} from '@kb/common';
import { entriesRepo } from './data-access/entries-repo';
import { entryUseCases } from './domain/entries';
import { entryIndexer } from './domain/indexer';
import type { KnowledgeConfig } from './config';
import { ensureKnowledgeIndexes, knowledgeModels, type KnowledgeModels } from './data-access/models';
import { tenantsRepo } from './data-access/tenants-repo';
import { tokensRepo } from './data-access/tokens-repo';
import { categoriesRepo } from './data-access/categories-repo';
import { categoryUseCases } from './domain/categories';
import { knowledgeServiceImpl } from './grpc/knowledge-service';

export const KNOWLEDGE_SERVICE_NAME = 'kb.knowledge.v1.KnowledgeService';

export interface KnowledgeServer {
  readonly port: number;
  readonly mongo: MongoHandle;
  stop(): Promise<void>;
}

/**
 * Starts the knowledge service: gRPC on the configured port and MongoDB in the background.
 * Health: SERVING while MongoDB is reachable, NOT_SERVING otherwise ("dependency:mongodb").
 */
export async function startKnowledgeServer(config: KnowledgeConfig, logger: Logger): Promise<KnowledgeServer> {
  let grpcServer: GrpcServerHandle | undefined;
  let models: KnowledgeModels | undefined;
  const mongo = connectMongo(config.MONGODB_URI, logger, {
    onChange: (up) => {
      grpcServer?.health.setStatus('dependency:mongodb', up ? 'SERVING' : 'NOT_SERVING');
      grpcServer?.setServing(up ? 'SERVING' : 'NOT_SERVING');
    },
    prepare: () => ensureKnowledgeIndexes(models as KnowledgeModels),
  });
  models = knowledgeModels(mongo.connection);
  const similarity = typedClient(
    'similarity',
    new (similarityProto().kb.similarity.v1.SimilarityService)(
      config.SIMILARITY_GRPC_ADDR,
      grpc.credentials.createInsecure(),
      CLIENT_OPTIONS,
    ),
    config.SIMILARITY_DEADLINE_MS,
  );
  const entries = entriesRepo(models);
  const indexer = entryIndexer({
    repo: entries,
    similarity,
    logger,
    intervalMs: config.INDEXER_INTERVAL_MS,
    immediateDeadlineMs: Math.min(config.INDEX_ON_WRITE_MS, config.SIMILARITY_DEADLINE_MS),
    isUp: () => mongo.isUp(),
  });
  const impl = knowledgeServiceImpl({
    logger,
    tenants: tenantsRepo(models),
    tokens: tokensRepo(models),
    categories: categoryUseCases(categoriesRepo(models), entries),
    entries: entryUseCases({
      entries,
      categories: categoriesRepo(models),
      tenants: tenantsRepo(models),
      mongo,
      indexer,
      similarity,
    }),
  });
  grpcServer = await startGrpcServer({
    host: config.GRPC_HOST,
    port: config.KNOWLEDGE_GRPC_PORT,
    services: [{ definition: knowledgeProto().kb.knowledge.v1.KnowledgeService.service, implementation: impl }],
    serviceNames: [KNOWLEDGE_SERVICE_NAME],
  });
  const up = mongo.isUp();
  grpcServer.health.setStatus('dependency:mongodb', up ? 'SERVING' : 'NOT_SERVING');
  grpcServer.setServing(up ? 'SERVING' : 'NOT_SERVING');
  grpcServer.setLive();
  logger.info({ port: grpcServer.port }, 'knowledge service listening');
  const server = grpcServer;
  // Also observes the backlog metrics until it stops.
  indexer.start();
  return {
    port: server.port,
    mongo,
    async stop() {
      // The running pass uses the similarity client and MongoDB: it ends before they close.
      await indexer.stop();
      await server.shutdown();
      similarity.close();
      await mongo.close();
    },
  };
}
