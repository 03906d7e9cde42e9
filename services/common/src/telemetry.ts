/**
 * OpenTelemetry bootstrap. Loaded before anything else with `node --require
 * @kb/common/dist/telemetry.js`, so the auto-instrumentations can patch http, koa, grpc,
 * mongodb/mongoose, undici and pino as they are first required. Configured only by OTEL_*
 * variables: traces are exported over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT (or
 * OTEL_TRACES_EXPORTER) is set; otherwise spans still exist, so logs carry trace ids, but
 * nothing is exported.
 */
import { NodeSDK } from '@opentelemetry/sdk-node';
import { getNodeAutoInstrumentations } from '@opentelemetry/auto-instrumentations-node';

const exporting = Boolean(
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || process.env.OTEL_TRACES_EXPORTER,
);
// Without an exporter the SDK would install no tracer provider at all, and every log line
// would carry an all-zero trace id. A processor that drops spans keeps real ids in the logs.
const dropSpans = { onStart() {}, onEnd() {}, forceFlush: async () => {}, shutdown: async () => {} };
if (!process.env.OTEL_METRICS_EXPORTER) process.env.OTEL_METRICS_EXPORTER = 'none';
if (!process.env.OTEL_LOGS_EXPORTER) process.env.OTEL_LOGS_EXPORTER = 'none';

const sdk = new NodeSDK({
  ...(exporting ? {} : { spanProcessors: [dropSpans] }),
  instrumentations: [
    getNodeAutoInstrumentations({
      // File-system and DNS spans are noise for a request-serving service.
      '@opentelemetry/instrumentation-fs': { enabled: false },
      '@opentelemetry/instrumentation-dns': { enabled: false },
      '@opentelemetry/instrumentation-net': { enabled: false },
    }),
  ],
});
sdk.start();

let stopping = false;
export async function shutdownTelemetry(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await sdk.shutdown().catch(() => undefined);
}
// Found by process.ts without importing this module (importing it would start the SDK in
// processes that run without the preload, such as the tests).
(globalThis as Record<symbol, unknown>)[Symbol.for('kb.shutdownTelemetry')] = shutdownTelemetry;
