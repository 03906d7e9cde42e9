import {
  DependencyWatch,
  probeDeadlineMs,
  type Logger,
  serverAuthOf,
  similarityProto,
  startGrpcServer,
  untraced,
} from '@kb/platform';
import { indexLayoutOf, type SimilarityConfig } from './config';
import { createEmbedder, modelFilesIn, type Embedder } from './embedder';
import { createElasticsearchClient, ownIndexPatterns, ownIndicesServing, type ElasticsearchClient } from '@kb/search';
import { EmbeddingStore } from './data-access/embedding-store';
import { IndexManager } from './data-access/index-manager';
import { EmbeddingCache } from './domain/embedding-cache';
import { measuredEmbedder } from './embedder/metrics';
import { tracedEmbedder } from './embedder/tracing';
import { similarityServiceImpl } from './grpc/similarity-service';

export const SIMILARITY_SERVICE_NAME = 'kb.similarity.v1.SimilarityService';
/** The embedder's readiness; Elasticsearch has its own watch (every 0.25 s, bounded at 1 s). */
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
    ...(config.EMBEDDING_SESSIONS !== undefined ? { sessions: config.EMBEDDING_SESSIONS } : {}),
    ...(config.EMBEDDING_THREADS !== undefined ? { threads: config.EMBEDDING_THREADS } : {}),
  });
}

/**
 * Watches Elasticsearch (the health of the install's own indices, a bounded call every 0.25 s) and probes the embedder,
 * publishing each as health "dependency:<name>" ("" does not follow them: it is SERVING from start to drain).
 * Creates the indices once Elasticsearch first answers.
 */
function dependencyProbe(
  server: Awaited<ReturnType<typeof startGrpcServer>>,
  deps: { es: ElasticsearchClient; indices: IndexManager; embedder: Embedder; logger: Logger },
): { elasticsearch: DependencyWatch; probeEmbedder: () => Promise<void>; ensureIndices: () => Promise<boolean> } {
  const { es, indices, embedder, logger } = deps;
  const state = { elasticsearch: false, embedder: false };
  const publish = (dep: keyof typeof state, up: boolean) => {
    if (dep === 'embedder' && state[dep] !== up)
      logger.info({ dependency: dep, up }, up ? `${dep} reachable` : `${dep} not reachable`);
    state[dep] = up;
    server.health.setStatus(`dependency:${dep}`, up ? 'SERVING' : 'NOT_SERVING');
  };
  let indicesCreated: Promise<boolean> | undefined;
  // Create the indices as soon as Elasticsearch answers; a failure is retried when it next comes up.
  // Not traced either: start-up housekeeping, not a request.
  const ensureIndices = () =>
    (indicesCreated ??= untraced(() => indices.ensureAll()).then(
      () => true,
      (err: Error) => {
        logger.warn({ err: err.message }, 'could not create the indices yet');
        indicesCreated = undefined;
        return false;
      },
    ));
  // Not traced: a probe every half second would be a trace every half second.
  const elasticsearch = new DependencyWatch({
    name: 'Elasticsearch',
    logger,
    onChange: (up) => {
      publish('elasticsearch', up);
      if (up) void ensureIndices();
    },
    // The client's own bound is longer than the watch's, so a frozen cluster is a timed-out probe.
    // The install's own indices: another install's red index on the same cluster is not this one's outage.
    probe: (boundMs) =>
      untraced(() => ownIndicesServing(es, ownIndexPatterns(indices.prefix), probeDeadlineMs(boundMs))),
  });
  publish('elasticsearch', false);
  const probeEmbedder = () =>
    untraced(async () =>
      publish(
        'embedder',
        await embedder.ready().then(
          () => true,
          (err: Error) => {
            logger.warn({ dependency: 'embedder', err: err.message }, 'embedder not ready');
            return false;
          },
        ),
      ),
    );
  return { elasticsearch, probeEmbedder, ensureIndices };
}

/**
 * Starts the similarity service. Health names "dependency:elasticsearch" and
 * "dependency:embedder" are probed every few seconds; "" is SERVING from start to drain.
 */
export async function startSimilarityServer(config: SimilarityConfig, logger: Logger): Promise<SimilarityServer> {
  const es = createElasticsearchClient(config.ELASTICSEARCH_URL);
  const embedder = measuredEmbedder(
    tracedEmbedder(embedderFromConfig(config), config.EMBEDDING_PROVIDER),
    config.EMBEDDING_PROVIDER,
  );
  const indices = new IndexManager(
    es,
    logger,
    config.ELASTICSEARCH_INDEX_PREFIX,
    embedder.model,
    embedder.dims,
    indexLayoutOf(config),
  );
  const cache = new EmbeddingCache(new EmbeddingStore(es, indices, embedder.model, embedder.dims), embedder);
  // Set once the watch exists (below); the handlers only run after that.
  let elasticsearchWatch: DependencyWatch | undefined;
  const server = await startGrpcServer({
    host: config.GRPC_HOST,
    port: config.SIMILARITY_GRPC_PORT,
    maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS,
    maxConnectionAgeGraceMs: config.GRPC_MAX_CONNECTION_AGE_GRACE_MS,
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
          requireElasticsearch: () => elasticsearchWatch?.assertUp(),
        }),
      },
    ],
    serviceNames: [SIMILARITY_SERVICE_NAME],
    // A reindex replaces the index every tenant searches: the system credential's alone.
    auth: serverAuthOf(config, 'similarity', logger, { systemOnly: ['BeginReindex', 'FinishReindex', 'PurgeTenant'] }),
  });

  const { elasticsearch, probeEmbedder, ensureIndices } = dependencyProbe(server, { es, indices, embedder, logger });
  elasticsearchWatch = elasticsearch;
  await Promise.all([elasticsearch.start(), probeEmbedder()]);
  if (elasticsearch.isUp()) await ensureIndices();
  const timer = setInterval(() => void probeEmbedder(), PROBE_INTERVAL_MS);
  timer.unref();
  server.setLive();
  logger.info({ port: server.port, model: embedder.model, dims: embedder.dims }, 'similarity service listening');
  return {
    port: server.port,
    embedder,
    indices,
    async stop() {
      clearInterval(timer);
      elasticsearch.stop();
      await server.shutdown();
      await embedder.close();
      await es.close();
    },
  };
}
