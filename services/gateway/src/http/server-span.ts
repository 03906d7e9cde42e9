import type Koa from 'koa';
import {
  context,
  metrics,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  ValueType,
  type Attributes,
} from '@opentelemetry/api';
import { PROBE_PATHS } from '@kb/platform';

/** The methods HTTP semantic conventions name; any other is `_OTHER` (with the original beside it). */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);
/** Query parameters whose values are never recorded (instrumentation-http's default list). */
const REDACTED_QUERY = ['AWSAccessKeyId', 'Signature', 'sig', 'X-Goog-Signature'];
const SCOPE = '@kb/gateway';

/** The router's template (`/api/knowledge/products/:product_id`), never the path's ids. */
export const matchedRoute = (ctx: Koa.Context) => (ctx as { _matchedRoute?: string })._matchedRoute;

/**
 * The request's SERVER span and its `http.server.request.duration`, as OpenTelemetry's HTTP
 * semantic conventions name them: the first middleware, so every other one (the request log
 * line, the gRPC calls, the Elasticsearch client) runs inside it. It replaces
 * `@opentelemetry/instrumentation-http` in the gateway, whose patching of every request and
 * response emitter cost ~0.25 ms of a similar search's ~1.3 ms in the gateway, sampled or not
 * (docs/performance.md): here a request that is not sampled costs a span context and the
 * histogram's record; the attributes only a recorded span shows are read only when it is.
 *
 * Names, attributes and the metric are the instrumentation's (stable HTTP conventions): the span
 * `{method} {route}` with `http.route`, its status an error from 500 on, the histogram in
 * seconds with the method, scheme, protocol version, status code, route and `error.type` (the
 * status, from 500). A `traceparent` continues the caller's trace under EdgeSampler's rule.
 * Where the instrumentation is loaded anyway (OTEL_NODE_ENABLED_INSTRUMENTATIONS naming `http`),
 * its span is the request's and this adds nothing.
 */
export function serverSpans(): Koa.Middleware {
  const tracer = trace.getTracer(SCOPE);
  const duration = metrics.getMeter(SCOPE).createHistogram('http.server.request.duration', {
    description: 'Duration of HTTP server requests.',
    unit: 's',
    valueType: ValueType.DOUBLE,
    advice: { explicitBucketBoundaries: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10] },
  });
  return async (ctx, next) => {
    if (PROBE_PATHS.has(ctx.path) || trace.getSpan(context.active())) return next();
    const started = performance.now();
    const raw = ctx.method;
    const method = KNOWN_METHODS.has(raw) ? raw : '_OTHER';
    const scheme = ctx.protocol; // https behind a proxy that says so, when TRUST_PROXY
    const parent = propagation.extract(ROOT_CONTEXT, ctx.req.headers);
    const span = tracer.startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': method, 'url.scheme': scheme, 'url.path': ctx.path },
      },
      parent,
    );
    if (span.isRecording()) span.setAttributes(requestAttributes(ctx, raw, method));
    const version = ctx.req.httpVersion;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      ctx.res.off('finish', end);
      ctx.res.off('close', end);
      const status = ctx.res.statusCode;
      const route = matchedRoute(ctx);
      const measured: Attributes = { 'http.request.method': method, 'url.scheme': scheme };
      if (version) measured['network.protocol.version'] = version;
      if (route) measured['http.route'] = route;
      if (status) measured['http.response.status_code'] = status;
      if (status >= 500) measured['error.type'] = String(status);
      duration.record((performance.now() - started) / 1000, measured);
      if (span.isRecording()) {
        span.setAttributes({ 'http.response.status_code': status, ...(route ? { 'http.route': route } : {}) });
        if (route) span.updateName(`${method === '_OTHER' ? 'HTTP' : method} ${route}`);
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    };
    ctx.res.once('finish', end);
    ctx.res.once('close', end);
    return context.with(trace.setSpan(parent, span), next);
  };
}

/** What a recorded span shows of the request beyond the method, scheme and path. */
function requestAttributes(ctx: Koa.Context, raw: string, method: string): Attributes {
  const { req } = ctx;
  const host = ctx.host; // X-Forwarded-Host when TRUST_PROXY
  const port = host.match(/:(\d+)$/)?.[1];
  const attributes: Attributes = {
    'server.address': ctx.hostname,
    'client.address': ctx.ip,
    'network.peer.address': req.socket.remoteAddress,
    'network.peer.port': req.socket.remotePort,
    'network.protocol.version': req.httpVersion,
    'user_agent.original': req.headers['user-agent'],
  };
  if (port) attributes['server.port'] = Number(port);
  if (method !== raw) attributes['http.request.method_original'] = raw;
  if (ctx.querystring) {
    const params = new URLSearchParams(ctx.querystring);
    for (const name of REDACTED_QUERY) if (params.has(name)) params.set(name, 'REDACTED');
    attributes['url.query'] = params.toString();
  }
  return attributes;
}
