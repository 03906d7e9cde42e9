/**
 * Operators' metrics shared by the services. Instruments come from the global meter of
 * @opentelemetry/api: with the preload and OTEL_METRICS_EXPORTER set (telemetry.ts), that is
 * the SDK's; without (the default, and the in-process tests) it is a no-op meter, so recording
 * costs a function call and observable callbacks never run.
 *
 * Names follow the OpenTelemetry semantic conventions where one exists (rpc.*, gen_ai.*);
 * the project's own are under `kb.`. The Prometheus exporter writes dots as underscores.
 */
import { metrics, ValueType, type Attributes, type Histogram, type Meter } from '@opentelemetry/api';

export type { Attributes, Counter, Histogram, Meter } from '@opentelemetry/api';

/** Instrumentation scope of every project metric (`otel_scope_name` in Prometheus). */
const METER_NAME = 'knowledge-service';

/** Bucket boundaries in seconds the semantic conventions advise for request durations. */
export const DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** Looked up on use, not at import: the preload registers the SDK's provider before any service code runs. */
export function kbMeter(): Meter {
  return metrics.getMeter(METER_NAME);
}

// ---- gRPC calls ------------------------------------------------------------------------------

/** Codes the gRPC semantic conventions count as server errors (the others are the caller's). */
const GRPC_SERVER_ERRORS = new Set([
  'UNKNOWN',
  'DEADLINE_EXCEEDED',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
]);

/**
 * Attributes of one gRPC call (semantic conventions 1.37+): `rpc.method` fully qualified
 * ("kb.catalog.v1.CatalogService/ListSites", from the call's path "/kb.catalog.v1.…"),
 * `rpc.status_code` the status name, `error.type` the same name when it is an error: every
 * non-OK code on the client, the server-fault codes on the server.
 */
export function rpcAttributes(side: 'server' | 'client', path: string, code: string): Attributes {
  const attributes: Attributes = {
    'rpc.system.name': 'grpc',
    'rpc.method': path.startsWith('/') ? path.slice(1) : path,
    'rpc.status_code': code,
  };
  if (code !== 'OK' && (side === 'client' || GRPC_SERVER_ERRORS.has(code))) attributes['error.type'] = code;
  return attributes;
}

let serverCalls: Histogram | undefined;
let clientCalls: Histogram | undefined;

/** A call-duration histogram in seconds, on the shared buckets. */
const callDurations = (name: string, description: string): Histogram =>
  kbMeter().createHistogram(name, {
    description,
    unit: 's',
    valueType: ValueType.DOUBLE,
    advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
  });

/** Records one handled call in `rpc.server.call.duration` (seconds). */
export function recordRpcServerCall(path: string, code: string, seconds: number): void {
  serverCalls ??= callDurations(
    'rpc.server.call.duration',
    'Duration of gRPC calls handled by this service, per method and status code.',
  );
  serverCalls.record(seconds, rpcAttributes('server', path, code));
}

/** Records one call made to another service in `rpc.client.call.duration` (seconds). */
export function recordRpcClientCall(path: string, code: string, seconds: number): void {
  clientCalls ??= callDurations(
    'rpc.client.call.duration',
    'Duration of gRPC calls this service made to another, per method and status code.',
  );
  clientCalls.record(seconds, rpcAttributes('client', path, code));
}

// ---- cached readings -------------------------------------------------------------------------

/**
 * A reading taken at most once per `maxAgeMs`, however often it is asked for: concurrent
 * askers share one reading in flight, and a failed or undefined reading is not kept (the next
 * ask tries again). What a scrape needs from MongoDB or a health check, without a query per
 * scrape and per replica of Prometheus.
 */
export function cachedReading<T>(
  read: () => Promise<T | undefined>,
  maxAgeMs: number,
  now: () => number = Date.now,
): () => Promise<T | undefined> {
  let value: T | undefined;
  let at = -Infinity;
  let inFlight: Promise<T | undefined> | undefined;
  return () => {
    if (value !== undefined && now() - at < maxAgeMs) return Promise.resolve(value);
    inFlight ??= Promise.resolve()
      .then(read)
      .then(
        (v) => {
          value = v;
          at = now();
          return v;
        },
        () => {
          value = undefined;
          return undefined;
        },
      )
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };
}

// ---- dependencies ----------------------------------------------------------------------------

/** How a service reads its dependencies' state: name → up. */
export type DependencyStates = () => Iterable<[string, boolean]> | Promise<Iterable<[string, boolean]>>;

/**
 * `kb.dependency.up`: 1 while a dependency is up, 0 while it is down, one series per
 * `kb.dependency.name` (mongodb, elasticsearch, embedder; the gateway: knowledge, catalog,
 * similarity). Read from the health state the service keeps anyway. Returns the unregistration.
 */
export function observeDependencies(states: DependencyStates): () => void {
  const gauge = kbMeter().createObservableGauge('kb.dependency.up', {
    description: 'Whether a dependency is up (1) or down (0), as this service sees it.',
    unit: '1',
    valueType: ValueType.INT,
  });
  const callback = async (result: { observe(value: number, attributes?: Attributes): void }) => {
    for (const [name, up] of await states()) result.observe(up ? 1 : 0, { 'kb.dependency.name': name });
  };
  gauge.addCallback(callback);
  return () => gauge.removeCallback(callback);
}

// ---- the indexers' backlog -------------------------------------------------------------------

/** Documents waiting for the search index (writes and deletes), and when the oldest was written. */
export interface IndexBacklog {
  count: number;
  oldest: Date | null;
  /** Documents the index refused as they are (`index_error`), out of the queue until fixed. */
  errors?: number;
}

/** Age in seconds of the oldest waiting document at `nowMs`; 0 with none (never negative: clocks of writers differ). */
export function backlogAgeSeconds(oldest: Date | null, nowMs: number): number {
  return oldest ? Math.max(0, (nowMs - oldest.getTime()) / 1000) : 0;
}

/** How often a scrape may cause the backlog queries at most. */
const BACKLOG_MAX_AGE_MS = 5_000;

/**
 * `kb.indexer.backlog.documents` and `kb.indexer.backlog.oldest_age` (seconds) for one kind of
 * document (`kb.document.kind`: entries, products), over every tenant of the database, and
 * `kb.indexer.errors.documents` when the reading has `errors` (documents the index refused). `read`
 * runs at most every BACKLOG_MAX_AGE_MS, only when something scrapes; when it fails or answers
 * undefined (MongoDB down) nothing is observed, so the series are absent rather than stale.
 * Returns the unregistration.
 */
export function observeIndexBacklog(
  kind: string,
  read: () => Promise<IndexBacklog | undefined>,
  maxAgeMs = BACKLOG_MAX_AGE_MS,
): () => void {
  const meter = kbMeter();
  const documents = meter.createObservableGauge('kb.indexer.backlog.documents', {
    description: 'Documents written to MongoDB and not yet in the search index (deletes included), all tenants.',
    unit: '{document}',
    valueType: ValueType.INT,
  });
  const oldestAge = meter.createObservableGauge('kb.indexer.backlog.oldest_age', {
    description: 'Seconds since the oldest write still waiting for the search index was made; 0 when none waits.',
    unit: 's',
    valueType: ValueType.DOUBLE,
  });
  const errors = meter.createObservableGauge('kb.indexer.errors.documents', {
    description: 'Documents the search index refused as they are (index errors), all tenants; not in the backlog.',
    unit: '{document}',
    valueType: ValueType.INT,
  });
  const reading = cachedReading(read, maxAgeMs);
  const attributes = { 'kb.document.kind': kind };
  const callback = async (result: {
    observe(instrument: typeof documents, value: number, attributes?: Attributes): void;
  }) => {
    const backlog = await reading();
    if (!backlog) return;
    result.observe(documents, backlog.count, attributes);
    result.observe(oldestAge, backlogAgeSeconds(backlog.oldest, Date.now()), attributes);
    if (backlog.errors !== undefined) result.observe(errors, backlog.errors, attributes);
  };
  const instruments = [documents, oldestAge, errors];
  meter.addBatchObservableCallback(callback, instruments);
  return () => meter.removeBatchObservableCallback(callback, instruments);
}
