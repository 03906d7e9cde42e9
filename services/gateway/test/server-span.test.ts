/**
 * The gateway's HTTP server span and `http.server.request.duration` (http/server-span.ts): the
 * names and attributes OpenTelemetry's HTTP conventions give, made by the first middleware, with
 * a real tracer and meter (in memory) and a real HTTP server.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { context, metrics, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { serverSpans } from '../src/http/server-span';

const spans = new InMemorySpanExporter();
const measured = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: measured, exportIntervalMillis: 3_600_000 });
/** Inside a handler: the active span's trace id and whether it is sampled (what the log line carries). */
const seenInside: { traceId: string; sampled: boolean }[] = [];

let server: Server;
let port: number;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  // Parent-based; new traces never sampled, so a request without traceparent is not recorded.
  const sampler = new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0) });
  trace.setGlobalTracerProvider(new BasicTracerProvider({ sampler, spanProcessors: [new SimpleSpanProcessor(spans)] }));
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));

  const app = new Koa();
  app.use(serverSpans());
  const router = new Router();
  router.get('/api/things/:id', async (ctx) => {
    await new Promise((r) => setTimeout(r, 1)); // the context crosses an await
    const s = trace.getSpan(context.active())?.spanContext();
    seenInside.push({ traceId: s?.traceId ?? '', sampled: ((s?.traceFlags ?? 0) & 1) === 1 });
    ctx.status = ctx.params['id'] === 'broken' ? 503 : 200;
    ctx.body = { id: ctx.params['id'] };
  });
  router.get('/healthz', (ctx) => {
    ctx.body = { ok: true };
  });
  app.use(router.routes());
  server = createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const get = (path: string, headers: Record<string, string> = {}) =>
  new Promise<number>((resolve, reject) => {
    const req = request({ port, path, host: '127.0.0.1', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const sampled = { traceparent: `00-${TRACE}-${PARENT}-01` };
/** Spans end on the response's finish, which can follow the client's end by a tick. */
const settle = () => new Promise((r) => setTimeout(r, 50));

async function durations() {
  await reader.forceFlush();
  const all = measured.getMetrics().flatMap((m) => m.scopeMetrics.flatMap((s) => s.metrics));
  const histogram = all.filter((m) => m.descriptor.name === 'http.server.request.duration').at(-1);
  return (histogram?.dataPoints ?? []) as unknown as {
    attributes: Record<string, unknown>;
    value: { count: number };
  }[];
}

describe("the gateway's server span", () => {
  beforeEach(() => spans.reset());

  test('when a request continues a sampled trace, then its SERVER span is named after the route and carries it', async () => {
    expect(await get('/api/things/42?x=1', sampled)).toBe(200);
    await settle();
    const [span] = spans.getFinishedSpans();
    expect(spans.getFinishedSpans()).toHaveLength(1);
    expect(span!.kind).toBe(SpanKind.SERVER);
    expect(span!.name).toBe('GET /api/things/:id');
    expect(span!.spanContext().traceId).toBe(TRACE);
    expect(span!.parentSpanContext?.spanId).toBe(PARENT);
    expect(span!.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': '/api/things/:id',
      'http.response.status_code': 200,
      'url.path': '/api/things/42',
      'url.query': 'x=1',
      'url.scheme': 'http',
      'network.protocol.version': '1.1',
    });
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
    expect(seenInside.at(-1)).toEqual({ traceId: TRACE, sampled: true });
  });

  test('when the answer is a 5xx, then the span is an error and the metric names its error type', async () => {
    expect(await get('/api/things/broken', sampled)).toBe(503);
    await settle();
    expect(spans.getFinishedSpans()[0]!.status.code).toBe(SpanStatusCode.ERROR);
    const points = await durations();
    const failed = points.find((p) => p.attributes['http.response.status_code'] === 503);
    expect(failed?.attributes).toEqual({
      'http.request.method': 'GET',
      'url.scheme': 'http',
      'network.protocol.version': '1.1',
      'http.route': '/api/things/:id',
      'http.response.status_code': 503,
      'error.type': '503',
    });
  });

  test('when a request is not sampled, then no span is exported but it still has a trace id and is measured', async () => {
    const before = (await durations()).find((p) => p.attributes['http.response.status_code'] === 200)?.value.count ?? 0;
    expect(await get('/api/things/7')).toBe(200);
    await settle();
    expect(spans.getFinishedSpans()).toEqual([]);
    expect(seenInside.at(-1)!.sampled).toBe(false);
    expect(seenInside.at(-1)!.traceId).toMatch(/^[0-9a-f]{32}$/);
    const after = (await durations()).find((p) => p.attributes['http.response.status_code'] === 200)!;
    expect(after.value.count).toBe(before + 1);
    expect(after.attributes['http.route']).toBe('/api/things/:id'); // a template, never the id
  });

  test('when a probe is asked, then there is neither span nor measurement', async () => {
    const count = async () => (await durations()).reduce((n, p) => n + p.value.count, 0);
    const before = await count();
    expect(await get('/healthz', sampled)).toBe(200);
    await settle();
    expect(spans.getFinishedSpans()).toEqual([]);
    expect(await count()).toBe(before);
  });
});
