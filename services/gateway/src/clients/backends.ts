import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import {
  AppError,
  IDEMPOTENT_READS,
  balancingSettings,
  clientOptions,
  grpcTarget,
  DependencyWatch,
  LOADER_OPTIONS,
  probeDeadlineMs,
  callerSigner,
  type CallerSigner,
  typedClient,
  type TypedClient,
  catalogProto,
  knowledgeProto,
  similarityProto,
  type catalogV1,
  type healthV1,
  type knowledgeV1,
  type similarityV1,
  type Logger,
} from '@kb/platform';
import type { GatewayConfig } from '../config';

type HealthClient = healthV1.HealthClient;

function healthClient(address: string, options: grpc.ClientOptions): HealthClient {
  const def = protoLoader.loadSync(healthProtoPath, { ...LOADER_OPTIONS, includeDirs: [] });
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    grpc: {
      health: { v1: { Health: new (a: string, c: grpc.ChannelCredentials, o: grpc.ClientOptions) => HealthClient } };
    };
  };
  return new pkg.grpc.health.v1.Health(grpcTarget(address), grpc.credentials.createInsecure(), options);
}

type BackName = 'knowledge' | 'catalog' | 'similarity';

/** Whether an address may name several pods: a list, or a DNS name (a headless Service). */
const severalPods = (address: string) => address.includes(',') || address.startsWith('dns:');

/**
 * The bound of one health probe of a back service: shorter than the watch's default (1 s, sized
 * for a MongoDB-compatible server under a burst of writes), since a live service answers
 * grpc.health.v1 from its event loop in milliseconds. A frozen service is then known down within
 * 0.25 + 2 × 0.7 = 1.65 s, and a search waiting on it answers 503 within 2 s of the freeze;
 * calls answered meanwhile clear the count (`answered`), so a busy service is not taken for a frozen one.
 */
export const BACK_SERVICE_PROBE_TIMEOUT_MS = 700;

/** The reads of each back service (the calls retried once on another pod): only these stop waiting when their service turns down. */
const READS: Record<BackName, ReadonlySet<string>> = {
  knowledge: new Set(IDEMPOTENT_READS['kb.knowledge.v1.KnowledgeService']),
  catalog: new Set(IDEMPOTENT_READS['kb.catalog.v1.CatalogService']),
  similarity: new Set(IDEMPOTENT_READS['kb.similarity.v1.SimilarityService']),
};

/**
 * Calls that reach a second back service through the one called: refused at once while that
 * one is known down too (a search needs the similarity service behind knowledge or catalog).
 */
const REACHES_THROUGH: Partial<Record<BackName, Record<string, BackName[]>>> = {
  knowledge: { SearchEntries: ['similarity'] },
  catalog: { SearchProducts: ['similarity'], SimilarProducts: ['similarity'] },
};

export interface BackendService<C extends grpc.Client> extends TypedClient<C> {
  readonly health: HealthClient;
  /** Whether the service answers its health check (probed every 0.25 s, bounded at 0.7 s). */
  readonly watch: DependencyWatch;
  /** grpc.health.v1 status of a health name ("" = the service, "dependency:x" = a dependency). */
  check(service: string, timeoutMs?: number): Promise<'SERVING' | 'NOT_SERVING' | 'UNKNOWN' | 'UNREACHABLE'>;
}

function backend<C extends grpc.Client>(
  name: BackName,
  client: C,
  address: string,
  deadlineMs: number,
  sign: CallerSigner,
  options: grpc.ClientOptions,
  logger?: Logger,
): BackendService<C> {
  const health = healthClient(address, options);
  const check: BackendService<C>['check'] = (service, timeoutMs = 1500) =>
    new Promise((resolve) => {
      health.Check({ service }, { deadline: new Date(Date.now() + timeoutMs) }, (err, res) => {
        if (err) resolve(err.code === grpc.status.NOT_FOUND ? 'UNKNOWN' : 'UNREACHABLE');
        else resolve((res?.status as 'SERVING' | 'NOT_SERVING' | 'UNKNOWN') ?? 'UNKNOWN');
      });
    });
  // Reachable is what matters here: a service that answers NOT_SERVING (its database is away)
  // still answers each call at once with its own 503. Its check's own deadline is longer than
  // the watch's bound, so a frozen service is a timed-out probe.
  const watch = new DependencyWatch({
    name: `the ${name} service`,
    logger,
    // Until the first probe (startGateway starts the watches) calls go through as they come.
    initiallyUp: true,
    timeoutMs: BACK_SERVICE_PROBE_TIMEOUT_MS,
    // Several pods behind the address: probes go round robin, so two timed-out probes in a row
    // may both have met the one frozen pod; three say more surely that none answers.
    ...(severalPods(address) ? { timeoutsToDown: 3 } : {}),
    probe: (boundMs) =>
      new Promise<boolean>((resolve) => {
        health.Check({ service: '' }, { deadline: new Date(Date.now() + probeDeadlineMs(boundMs)) }, (err) =>
          // Any answer, even "no health service here", is a service that answers; only a
          // transport failure (refused, reset, no answer) is one that is gone.
          resolve(!err || (err.code !== grpc.status.UNAVAILABLE && err.code !== grpc.status.DEADLINE_EXCEEDED)),
        );
      }),
  });
  return {
    ...typedClient(name, client, deadlineMs, sign),
    health,
    watch,
    check,
  };
}

export interface Backends {
  knowledge: BackendService<knowledgeV1.KnowledgeServiceClient>;
  catalog: BackendService<catalogV1.CatalogServiceClient>;
  similarity: BackendService<similarityV1.SimilarityServiceClient>;
  /** Starts the health watches (resolves after each has probed once). */
  startWatching(): Promise<void>;
  close(): void;
}

/**
 * gRPC clients of the three back services (each with a health client on the same address and
 * a watch over it). While the watch says a service is down, a call that needs it (directly or
 * through another service) is refused at once with 503 instead of waiting out its deadline; a
 * call that fails as if the service were gone makes the watch probe at once.
 */
export function connectBackends(config: GatewayConfig, logger?: Logger): Backends {
  const creds = grpc.credentials.createInsecure();
  // Balanced over each service's pods (round robin, keepalive, one retry of a read: @kb/platform's grpc/balancing.ts).
  const options = clientOptions(balancingSettings(config));
  const k = new (knowledgeProto().kb.knowledge.v1.KnowledgeService)(
    grpcTarget(config.KNOWLEDGE_GRPC_ADDR),
    creds,
    options,
  );
  const c = new (catalogProto().kb.catalog.v1.CatalogService)(grpcTarget(config.CATALOG_GRPC_ADDR), creds, options);
  const s = new (similarityProto().kb.similarity.v1.SimilarityService)(
    grpcTarget(config.SIMILARITY_GRPC_ADDR),
    creds,
    options,
  );
  // Every call carries a caller assertion signed with the install's secret (the caller the token proved).
  const sign = callerSigner({ secret: config.SERVICE_AUTH_SECRET }, 'gateway');
  const backends = {
    knowledge: backend('knowledge', k, config.KNOWLEDGE_GRPC_ADDR, config.GRPC_DEADLINE_MS, sign, options, logger),
    catalog: backend('catalog', c, config.CATALOG_GRPC_ADDR, config.GRPC_DEADLINE_MS, sign, options, logger),
    similarity: backend('similarity', s, config.SIMILARITY_GRPC_ADDR, config.GRPC_DEADLINE_MS, sign, options, logger),
  };
  for (const [name, b] of Object.entries(backends) as [BackName, BackendService<grpc.Client>][]) {
    const call = b.call.bind(b);
    (b as { call: typeof call }).call = async (method, request, options) => {
      const needed = [b.watch, ...(REACHES_THROUGH[name]?.[method] ?? []).map((other) => backends[other].watch)];
      for (const watch of needed) watch.assertUp();
      // A read in flight when a service it needs turns down (frozen: nothing will answer before
      // the deadline) ends at once with that service's 503, as a read made a moment later would.
      // The gRPC call itself runs on to its deadline; its answer, if any, is dropped. A write
      // waits for its answer: it may have been done, and a 503 would say it was not.
      const unsubscribe: (() => void)[] = [];
      const turnedDown = new Promise<never>((_, reject) => {
        if (!READS[name].has(method)) return;
        for (const watch of needed) unsubscribe.push(watch.subscribe((up) => up || reject(watch.unavailable())));
      });
      const answering = call(method, request, options);
      answering.catch(() => undefined); // settled after a turnedDown rejection: nobody reads it
      try {
        const answer = await Promise.race([answering, turnedDown]);
        b.watch.answered();
        return answer;
      } catch (err) {
        if (err instanceof AppError && (err.kind === 'deadline' || err.kind === 'unavailable')) b.watch.suspect();
        throw err;
      } finally {
        for (const u of unsubscribe) u();
      }
    };
  }
  let watching = false;
  return {
    ...backends,
    async startWatching() {
      watching = true;
      await Promise.all(Object.values(backends).map((b) => b.watch.start()));
    },
    close() {
      for (const b of Object.values(backends)) {
        if (watching) b.watch.stop();
        b.client.close();
        b.health.close();
      }
    },
  };
}
