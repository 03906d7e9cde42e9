import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { getRPCMetadata, isTracingSuppressed, RPCType, suppressTracing } from '@opentelemetry/core';
import { outsideCall } from './grpc/deadline';

/**
 * Spans the auto-instrumentations cannot make, and none where they would make too many.
 * Without the preloaded SDK (tests in-process) all of it is a no-op. They trace every call they
 * see, so what runs on a timer either needs a span of its own (its calls then form one trace)
 * or none at all (a probe every few seconds would otherwise be a trace every few seconds).
 */
const tracer = () => trace.getTracer('@kb/platform');

function run<T>(
  name: string,
  options: { kind: SpanKind; attributes: Attributes; root?: boolean },
  parent: Context,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer().startActiveSpan(name, options, parent, async (span) => {
    try {
      return await work(span);
    } catch (err) {
      span.setAttribute('error.type', (err as Error)?.name || 'Error');
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * `work` as a span in the current trace, for a step no instrumentation sees (a model's
 * inference in-process). `client` when it stands for a call to another system. A failure sets
 * the span's status and `error.type`.
 */
export function inSpan<T>(
  name: string,
  options: { kind?: 'internal' | 'client'; attributes?: Attributes },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const kind = options.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL;
  return run(name, { kind, attributes: options.attributes ?? {} }, context.active(), work);
}

/**
 * Background `work` (an indexer pass that found something to do) as the root span of a trace
 * of its own: its gRPC and database calls become children of it instead of fragments without
 * a parent, and it never joins whichever request's context happened to be active.
 */
export function backgroundSpan<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  // Nor that request's deadline: background calls keep their own.
  return outsideCall(() => run(name, { kind: SpanKind.INTERNAL, attributes, root: true }, ROOT_CONTEXT, work));
}

/** Runs `work` with tracing suppressed: nothing it calls (Elasticsearch, MongoDB, gRPC) is traced. */
export function untraced<T>(work: () => Promise<T>): Promise<T> {
  return context.with(suppressTracing(context.active()), work);
}

/**
 * `db.query.text` of a MongoDB span: the command's shape with every value as '?' (what the
 * instrumentation writes by default), built only for a span that will be recorded. The
 * instrumentation builds it before it starts the span, for every command of every request,
 * sampled or not, and under mongoose's own span too, where the driver's span is suppressed: a
 * JSON walk of the whole command (250 updates of a bulk, 30 ids of a search) that was thrown
 * away nine times in ten.
 */
export function statementIfRecorded(command: unknown): string {
  const active = context.active();
  if (isTracingSuppressed(active) || !trace.getSpan(active)?.isRecording()) return '';
  const seen = new WeakSet<object>();
  return JSON.stringify(command, (_key, value: unknown) => {
    if (typeof value !== 'object' || value === null) return '?';
    if (seen.has(value)) return '[Circular]';
    seen.add(value);
    return value;
  });
}

/** Paths the kubelet probes every few seconds: answered without a span or an HTTP measurement. */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

/**
 * Names the HTTP server span of the request being served after its route template
 * (`POST /api/knowledge/products`, `http.route`, and the route label of the HTTP metrics), as the
 * Koa instrumentation did with a span per router layer: one assignment instead of a span. The
 * http instrumentation reads the route when the response ends. Without the SDK, a no-op; the
 * gateway's own server span (its default, http/server-span.ts) reads the route itself, so this
 * matters only where OTEL_NODE_ENABLED_INSTRUMENTATIONS loads `http`.
 */
export function nameHttpRoute(route: string | undefined): void {
  const metadata = route ? getRPCMetadata(context.active()) : undefined;
  if (metadata?.type === RPCType.HTTP) metadata.route = route;
}

/** True when the active span's trace is sampled: what is worth a log line per call beside the span. */
export function activeTraceSampled(): boolean {
  const flags = trace.getSpan(context.active())?.spanContext().traceFlags ?? 0;
  return (flags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED;
}
