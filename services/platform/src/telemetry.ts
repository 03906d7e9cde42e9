/**
 * OpenTelemetry bootstrap. Loaded before anything else with `node --require
 * @kb/platform/telemetry`, so the auto-instrumentations can patch http and
 * mongodb/mongoose as they are first required (gRPC spans: grpc/tracing.ts). Configured only by OTEL_*
 * variables: traces are exported over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT (or
 * OTEL_TRACES_EXPORTER) is set; otherwise spans still exist, so logs carry trace ids, but
 * nothing is exported. Metrics only when OTEL_METRICS_EXPORTER is set: `prometheus` serves
 * them on OTEL_EXPORTER_PROMETHEUS_HOST:OTEL_EXPORTER_PROMETHEUS_PORT (default: where the service
 * itself listens, HOST or GRPC_HOST, else loopback; 9464) at /metrics, a port of its own.
 */
import type { IncomingMessage } from 'node:http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { getNodeAutoInstrumentations } from '@opentelemetry/auto-instrumentations-node';
import { KoaLayerType } from '@opentelemetry/instrumentation-koa';
import { PROBE_PATHS, statementIfRecorded } from './tracing';
import { serviceSampler } from './sampling';

const exporting = Boolean(
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT ||
  process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
  process.env.OTEL_TRACES_EXPORTER,
);
// Without an exporter the SDK would install no tracer provider at all, and every log line
// would carry an all-zero trace id. A processor that drops spans keeps real ids in the logs.
const dropSpans = { onStart() {}, onEnd() {}, forceFlush: async () => {}, shutdown: async () => {} };
if (!process.env.OTEL_METRICS_EXPORTER) process.env.OTEL_METRICS_EXPORTER = 'none';
if (!process.env.OTEL_LOGS_EXPORTER) process.env.OTEL_LOGS_EXPORTER = 'none';

const metricsExporters = process.env.OTEL_METRICS_EXPORTER.split(',')
  .map((e) => e.trim())
  .filter(Boolean);
const prometheus = metricsExporters.includes('prometheus');
const prometheusPort = Number(process.env.OTEL_EXPORTER_PROMETHEUS_PORT) || PrometheusExporter.DEFAULT_OPTIONS.port;
// The unauthenticated metrics port listens no wider than the service itself: the exporter's own
// default is every interface, which on a developer's machine (services on 127.0.0.1) is more.
if (prometheus && !process.env.OTEL_EXPORTER_PROMETHEUS_HOST)
  process.env.OTEL_EXPORTER_PROMETHEUS_HOST = process.env.HOST || process.env.GRPC_HOST || '127.0.0.1';

/** One JSON line like the services' own (pino) lines: telemetry starts before any logger. */
function logError(msg: string, fields: Record<string, unknown>): void {
  process.stderr.write(
    `${JSON.stringify({ level: 'error', time: new Date().toISOString(), service: process.env.OTEL_SERVICE_NAME, ...fields, msg })}\n`,
  );
}

// `prometheus` alone (what the Helm chart sets): the SDK's own exporter, read from the same
// variables, built here so that a busy port is logged; sdk-node would drop that error silently.
// Any other combination (otlp, console, several) is left to sdk-node as it reads the variable.
/** OTEL_SDK_DISABLED=true: nothing is patched, recorded or served at all (no spans, no trace ids in logs, no metrics). */
const disabled = process.env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';

const metricReaders =
  !disabled && prometheus && metricsExporters.every((e) => e === 'prometheus')
    ? [
        new PrometheusExporter({}, (err: Error | void) => {
          if (err) logError(`metrics not served: ${err.message}`, { port: prometheusPort });
        }),
      ]
    : undefined;

/**
 * The instrumentations loaded when OTEL_NODE_ENABLED_INSTRUMENTATIONS is not set: MongoDB's. The
 * gateway makes the HTTP server span and metric of each request itself (its first Koa
 * middleware, `http/server-span.ts`), under the same names: the http instrumentation patched
 * every request's and response's emitters and cost ~0.25 ms of a similar search, sampled or not
 * (docs/performance.md), and no other service serves HTTP. The Koa instrumentation wrapped every
 * middleware of every request for one router span that said what the server span says. Elasticsearch
 * spans come from its client itself; the services' gRPC spans and context propagation are their
 * own (grpc/tracing.ts), cheaper than the grpc-js instrumentation. The rest of the bundle cost
 * CPU on every request, sampled or not, and added nothing here: undici (an HTTP span under each
 * Elasticsearch client span, ~0.5 ms of CPU per similar search), pino (the logger's own mixin
 * writes trace_id and span_id), runtime-node (only feeds metrics: loaded when they are exported).
 */
export const DEFAULT_INSTRUMENTATIONS = 'mongoose,mongodb';
// runtime-node gives the Node runtime metrics (nodejs.eventloop.*, v8js.*): loaded when metrics are exported.
if (!process.env.OTEL_NODE_ENABLED_INSTRUMENTATIONS) {
  const runtimeNode = metricsExporters.some((e) => e !== 'none') ? ',runtime-node' : '';
  process.env.OTEL_NODE_ENABLED_INSTRUMENTATIONS = `${DEFAULT_INSTRUMENTATIONS}${runtimeNode}`;
}

/**
 * Sampling when OTEL_TRACES_SAMPLER is not set: parent-based, 10% of the requests. A client's
 * traceparent does not choose: its trace id is kept, but the request is sampled at the same
 * ratio (sampling.ts); the services behind the gateway follow the gateway's decision. Why a
 * tenth, and what each setting costs, measured by `npm run bench`: docs/observability.md, "Sampling",
 * and docs/performance.md, "Why tracing costs what it costs".
 */
export const DEFAULT_SAMPLER = {
  OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
  OTEL_TRACES_SAMPLER_ARG: '0.1',
} as const;
if (!process.env.OTEL_TRACES_SAMPLER) Object.assign(process.env, DEFAULT_SAMPLER);

const sdk = disabled
  ? undefined
  : new NodeSDK({
      ...(exporting ? {} : { spanProcessors: [dropSpans] }),
      ...(metricReaders ? { metricReaders } : {}),
      sampler: serviceSampler(),
      instrumentations: [
        getNodeAutoInstrumentations({
          // File-system and DNS spans are noise for a request-serving service.
          '@opentelemetry/instrumentation-fs': { enabled: false },
          '@opentelemetry/instrumentation-dns': { enabled: false },
          '@opentelemetry/instrumentation-net': { enabled: false },
          // Scrapes of the metrics endpoint are neither requests to trace nor to count; nor are
          // probes (/healthz, /readyz; grpc.health.v1 is not traced at all: only the services' own
          // methods make gRPC spans): each would be a trace every few seconds per pod.
          '@opentelemetry/instrumentation-http': {
            ignoreIncomingRequestHook: (req: IncomingMessage) =>
              PROBE_PATHS.has((req.url ?? '').split('?')[0] ?? '') ||
              (prometheus && req.socket?.localPort === prometheusPort),
          },
          // Not loaded by default (above). Turned on through OTEL_NODE_ENABLED_INSTRUMENTATIONS, it
          // makes the router layer's span only, not one per plain middleware.
          '@opentelemetry/instrumentation-koa': { ignoreLayersType: [KoaLayerType.MIDDLEWARE] },
          // One span per MongoDB operation, named as the code calls it (findOneAndUpdate products):
          // without suppression the driver's span of the same round trip is its sibling. Operations
          // outside any trace (start-up, timers) are not traced, as the driver's
          // instrumentation does by default.
          '@opentelemetry/instrumentation-mongoose': { suppressInternalInstrumentation: true, requireParentSpan: true },
          '@opentelemetry/instrumentation-mongodb': { dbStatementSerializer: statementIfRecorded },
        }),
      ],
    });
sdk?.start();

let stopping = false;
export async function shutdownTelemetry(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await sdk?.shutdown().catch(() => undefined);
}
// Found by process.ts without importing this module (importing it would start the SDK in
// processes that run without the preload, such as the tests).
(globalThis as Record<symbol, unknown>)[Symbol.for('kb.shutdownTelemetry')] = shutdownTelemetry;
