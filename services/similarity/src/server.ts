import { type Logger, serverAuthOf, similarityProto, startGrpcServer, untraced } from '@kb/common';
import type { SimilarityConfig } from './config';
import { createEmbedder, modelFilesIn, type Embedder } from './embedder';
import { createElasticsearchClient, elasticsearchIsUp, type ElasticsearchClient } from './data-access/elasticsearch';
import { EmbeddingStore } from './data-access/embedding-store';
import { IndexManager } from './data-access/index-manager';
import { EmbeddingCache } from './domain/embedding-cache';
import { measuredEmbedder } from './embedder/metrics';
import { tracedEmbedder } from './embedder/tracing';
import { similarityServiceImpl } from './grpc/similarity-service';

export const SIMILARITY_SERVICE_NAME = 'kb.similarity.v1.SimilarityService';
const PROBE_INTERVAL_MS = 5000;

export interface SimilarityServer {
  readonly port: number;
  readonly embedder: Embedder;
  readonly indices: IndexManager;
  stop(): Promise<void>;
}

export function embedderFromConfig(config: SimilarityConfig): Embedder {
  if (config.EMBEDDING_PROVIDER === 'openai') {
    return createEmbedder({
      provider: 'openai',
      baseUrl: config.EMBEDDING_API_URL as string,
      ...(config.EMBEDDING_API_KEY ? { apiKey: config.EMBEDDING_API_KEY } : {}),
      model: config.EMBEDDING_MODEL_NAME,
      dims: config.EMBEDDING_DIMS,
    });
  }
  return createEmbedder({
    provider: 'local',
    modelName: config.EMBEDDING_MODEL_NAME,
    dims: config.EMBEDDING_DIMS,
    ...modelFilesIn(config.EMBEDDING_MODEL_DIR as string),
  });
}

/**
 * Probes Elasticsearch and the embedder, publishing each as health "dependency:<name>"; the
 * service is SERVING when both are up. Creates the indices once Elasticsearch first answers.
 */
function dependencyProbe(
  server: Awaited<ReturnType<typeof startGrpcServer>>,
  deps: { es: ElasticsearchClient; indices: IndexManager; embedder: Embedder; logger: Logger },
): () => Promise<void> {
  const { es, indices, embedder, logger } = deps;
  const state = { elasticsearch: false, embedder: false };
  const publish = (dep: keyof typeof state, up: boolean) => {
    if (state[dep] !== up) logger.info({ dependency: dep, up }, up ? `${dep} reachable` : `${dep} not reachable`);
    state[dep] = up;
    server.health.setStatus(`dependency:${dep}`, up ? 'SERVING' : 'NOT_SERVING');
    server.setServing(state.elasticsearch && state.embedder ? 'SERVING' : 'NOT_SERVING');
  };
  let indicesCreated = false;
  // Not traced: a probe every few seconds would be a trace every few seconds.
  return () =>
    untraced(async () => {
      const esUp = await elasticsearchIsUp(es);
      // Create the indices as soon as Elasticsearch answers; a failure is retried on first need.
      if (esUp && !indicesCreated) {
        indicesCreated = await indices.ensureAll().then(
          () => true,
          (err: Error) => {
            logger.warn({ err: err.message }, 'could not create the indices yet');
            return false;
          },
        );
      }
      publish('elasticsearch', esUp);
      publish(
        'embedder',
        await embedder.ready().then(
          () => true,
          (err: Error) => {
            logger.warn({ dependency: 'embedder', err: err.message }, 'embedder not ready');
            return false;
          },
        ),
      );
    });
}

/**
 * Starts the similarity service. Health names "dependency:elasticsearch" and
 * "dependency:embedder" are probed every few seconds; the service is SERVING when both are up.
 */
export async function startSimilarityServer(config: SimilarityConfig, logger: Logger): Promise<SimilarityServer> {
  const es = createElasticsearchClient(config.ELASTICSEARCH_URL);
  const embedder = measuredEmbedder(
    tracedEmbedder(embedderFromConfig(config), config.EMBEDDING_PROVIDER),
    config.EMBEDDING_PROVIDER,
  );
  const indices = new IndexManager(es, logger, config.ELASTICSEARCH_INDEX_PREFIX, embedder.model, embedder.dims);
  const cache = new EmbeddingCache(new EmbeddingStore(es, indices, embedder.model, embedder.dims), embedder);
  const server = await startGrpcServer({
    host: config.GRPC_HOST,
    port: config.SIMILARITY_GRPC_PORT,
    services: [
      {
        definition: similarityProto().kb.similarity.v1.SimilarityService.service,
        implementation: similarityServiceImpl({
          logger,
          embedder,
          provider: config.EMBEDDING_PROVIDER,
          modelLanguages: config.EMBEDDING_LANGUAGES.split(','),
          es,
          indices,
          cache,
        }),
      },
    ],
    serviceNames: [SIMILARITY_SERVICE_NAME],
    // A reindex replaces the index every tenant searches: the system credential's alone.
    auth: serverAuthOf(config, 'similarity', logger, { systemOnly: ['BeginReindex', 'FinishReindex'] }),
  });

  const probe = dependencyProbe(server, { es, indices, embedder, logger });
  await probe();
  const timer = setInterval(() => void probe(), PROBE_INTERVAL_MS);
  timer.unref();
  server.setLive();
  logger.info({ port: server.port, model: embedder.model, dims: embedder.dims }, 'similarity service listening');
  return {
    port: server.port,
    embedder,
    indices,
    async stop() {
      clearInterval(timer);
      await server.shutdown();
      await embedder.close();
      await es.close();
    },
  };
}
