import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import type * as grpc from '@grpc/grpc-js';

/**
 * The gRPC spans of the services' own calls, made here rather than by the grpc-js
 * auto-instrumentation: the same spans (`grpc.<package.Service>/<Method>`, CLIENT in the caller,
 * SERVER in the callee as its child, `rpc.*` attributes) and the same W3C `traceparent` in the
 * metadata, for a fraction of the cost (the instrumentation wraps every grpc-js call path and
 * cost ~8% of the similar-search throughput, measured with `npm run bench`). Without the SDK
 * (OTEL_SDK_DISABLED, tests in-process) the API is a no-op and so is this.
 */
const tracer = () => trace.getTracer('@kb/platform/grpc');

const setter: TextMapSetter<grpc.Metadata> = { set: (metadata, key, value) => metadata.set(key, value) };
const getter: TextMapGetter<grpc.Metadata> = {
  get: (metadata, key) => {
    const values = metadata.get(key);
    return values.length ? String(values[0]) : undefined;
  },
  keys: (metadata) => Object.keys(metadata.getMap()),
};

function started(path: string, kind: SpanKind, parent: Context): Span {
  const name = path.startsWith('/') ? path.slice(1) : path;
  const slash = name.lastIndexOf('/');
  return tracer().startSpan(
    `grpc.${name}`,
    {
      kind,
      attributes: { 'rpc.system': 'grpc', 'rpc.service': name.slice(0, slash), 'rpc.method': name.slice(slash + 1) },
    },
    parent,
  );
}

function ended(span: Span, code: grpc.status): void {
  if (span.isRecording()) {
    span.setAttribute('rpc.grpc.status_code', code);
    if (code !== 0) span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** A CLIENT span for a call about to be made, its context written into `metadata`; call the result with the status code. */
export function clientCallSpan(path: string, metadata: grpc.Metadata): (code: grpc.status) => void {
  const span = started(path, SpanKind.CLIENT, context.active());
  propagation.inject(trace.setSpan(context.active(), span), metadata, setter);
  return (code) => ended(span, code);
}

/**
 * Runs `work` as the SERVER span of a call (the caller's context read from its metadata); the
 * span ends when `end` is called with the call's status code.
 */
export function serverCallSpan<T>(
  path: string,
  metadata: grpc.Metadata,
  work: (end: (code: grpc.status) => void) => T,
): T {
  const parent = propagation.extract(ROOT_CONTEXT, metadata, getter);
  const span = started(path, SpanKind.SERVER, parent);
  return context.with(trace.setSpan(parent, span), () => work((code) => ended(span, code)));
}
