/**
 * Distributed traces as an operator reads them. The four services run as their entry points
 * run them (`node --require @kb/platform/telemetry`, configured only by OTEL_*
 * variables) and export OTLP over HTTP in the exporters' default encoding (http/protobuf) to a
 * real receiver (test/support/otlp-receiver.ts). A request that arrives with a W3C
 * traceparent, as the assistant sends it, must come back as one trace: gateway → knowledge /
 * catalog → similarity over gRPC, with the MongoDB, Elasticsearch and embedder calls inside,
 * every span's parent in the trace. A second gateway runs with
 * OTEL_TRACES_SAMPLER=parentbased_traceidratio and OTEL_TRACES_SAMPLER_ARG=0 for sampling: there
 * a client's sampled traceparent does not force a trace.
 */
import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
import {
  adminToken,
  databaseUri,
  httpRequest,
  tenantWithAdminToken,
  uniqueId,
  type HttpResponse,
  type RequestOptions,
} from '../support/stack';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { startProcessStack, type ProcessStack } from '../support/service-process';

const db = uniqueId('kbtraces');
const tenant = uniqueId('traced');
const SERVICE_NAMES = ['kb-gateway', 'kb-knowledge', 'kb-catalog', 'kb-similarity'];
type Process = 'similarity' | 'knowledge' | 'catalog' | 'gateway' | 'sampledGateway';

let receiver: OtlpReceiver;
let stack: ProcessStack | undefined;
const logOf = (proc: Process) => stack?.processes[proc]?.log() ?? '';
const port = {} as Record<'gateway' | 'sampledGateway', number>;
let conn: mongoose.Connection;
let token: string;
let category: string;

const mongoUri = () => databaseUri(db);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const request = (p: string, init: RequestOptions = {}, via: 'gateway' | 'sampledGateway' = 'gateway') =>
  httpRequest(port[via], `${tenant}.localhost`, p, { token, ...init });

/** A fresh W3C trace context as the assistant sends it: version 00, sampled (flags 01). */
function traceparent(): { header: string; traceId: string; parentId: string } {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  return { header: `00-${traceId}-${parentId}-01`, traceId, parentId };
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  stack = await startProcessStack({
    mongoUri: mongoUri(),
    indexPrefix: db,
    // Every trace kept (the default keeps a tenth of those not started by a sampled caller).
    env: (service) => ({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      // The catalog writes what it logs below info too: its unsampled calls' lines (debug) still carry the trace id.
      ...(service === 'catalog' ? { LOG_LEVEL: 'debug' } : {}),
    }),
    indexing: { INDEXER_INTERVAL_MS: '250' },
    gateways: {
      gateway: {},
      sampledGateway: { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' },
    },
    keepChars: 500_000,
    readyWithinMs: 180_000, // a model load on a busy shared machine
  });
  port.gateway = stack.gatewayPorts.gateway as number;
  port.sampledGateway = stack.gatewayPorts.sampledGateway as number;

  conn = await mongoose.createConnection(mongoUri()).asPromise();
  token = await tenantWithAdminToken(conn, tenant);
  expect((await request('/api/knowledge/sites', { method: 'POST', body: { slug: 'shop', name: 'Shop' } })).status).toBe(
    201,
  );
  const created = await request('/api/knowledge/categories', { method: 'POST', body: { name: 'Help' } });
  expect(created.status).toBe(201);
  category = created.json.id;
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  await conn?.close();
  await receiver?.close();
});

// ---- reading a trace -------------------------------------------------------------------

/** Spans whose parent is not in the trace: a well-formed trace has one, its root. */
const orphans = (trace: readonly ReceivedSpan[]) => {
  const ids = new Set(trace.map((s) => s.spanId));
  return trace.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId));
};

/** Waits until the trace has a span matching every `expected` and no span without its parent. */
async function completeTrace(traceId: string, expected: ((s: ReceivedSpan) => boolean)[]): Promise<ReceivedSpan[]> {
  const complete = () => {
    const trace = receiver.spansOf(traceId);
    return orphans(trace).length === 1 && expected.every((e) => trace.some(e));
  };
  await receiver.waitForSpans(complete, 10_000).catch((err: Error) => {
    throw new Error(`${err.message}\ntrace ${traceId} so far:\n${receiver.tree(traceId)}`);
  });
  return receiver.spansOf(traceId);
}

const span = (service: string, name: string | RegExp, kind?: ReceivedSpan['kind']) => (s: ReceivedSpan) =>
  s.service === service &&
  (typeof name === 'string' ? s.name === name : name.test(s.name)) &&
  (!kind || s.kind === kind);
const isMongo = (s: ReceivedSpan) => (s.attributes['db.system.name'] ?? s.attributes['db.system']) === 'mongodb';
const isElasticsearch = (s: ReceivedSpan) =>
  (s.attributes['db.system.name'] ?? s.attributes['db.system']) === 'elasticsearch';

class Trace {
  constructor(
    readonly spans: ReceivedSpan[],
    private readonly traceId: string,
  ) {}

  one(match: (s: ReceivedSpan) => boolean, what: string): ReceivedSpan {
    const found = this.spans.find(match);
    if (!found) throw new Error(`no ${what} in trace ${this.traceId}:\n${receiver.tree(this.traceId)}`);
    return found;
  }

  /** True when `ancestor` is `s`'s parent, grandparent, …. */
  under(s: ReceivedSpan, ancestor: ReceivedSpan): boolean {
    const byId = new Map(this.spans.map((x) => [x.spanId, x]));
    for (
      let p = s.parentSpanId && byId.get(s.parentSpanId);
      p;
      p = p.parentSpanId ? byId.get(p.parentSpanId) : undefined
    )
      if (p === ancestor) return true;
    return false;
  }

  /**
   * One gRPC hop: the client span in `from` (under `caller`), the server span in `to` as its
   * direct child. Returns the server span.
   */
  hop(caller: ReceivedSpan, to: string, method: string): ReceivedSpan {
    const name = `grpc.${method}`;
    const client = this.one(
      (s) => span(caller.service, name, 'CLIENT')(s) && this.under(s, caller),
      `${caller.service} client span ${name} under ${caller.name}`,
    );
    const server = this.one(span(to, name, 'SERVER'), `${to} server span ${name}`);
    expect(server.parentSpanId).toBe(client.spanId);
    return server;
  }

  /** Spans of `service` that `match` below `ancestor`. */
  below(ancestor: ReceivedSpan, match: (s: ReceivedSpan) => boolean): ReceivedSpan[] {
    return this.spans.filter((s) => s.service === ancestor.service && match(s) && this.under(s, ancestor));
  }
}

/** The gateway's server span continues the sent context; one root; the four service names. */
function expectContinued(
  trace: ReceivedSpan[],
  sent: { traceId: string; parentId: string },
  services = SERVICE_NAMES,
): ReceivedSpan {
  const roots = orphans(trace);
  expect(roots.map((s) => [s.service, s.kind, s.parentSpanId])).toEqual([['kb-gateway', 'SERVER', sent.parentId]]);
  expect(trace.every((s) => s.traceId === sent.traceId)).toBe(true);
  expect([...new Set(trace.map((s) => s.service))].sort()).toEqual([...services].sort());
  return roots[0] as ReceivedSpan;
}

const grpcServer = (service: string, method: string) => span(service, `grpc.${method}`, 'SERVER');

// ---- the tests -------------------------------------------------------------------------

const kettle = {
  external_id: 'kettle-1',
  title: 'Blue kettle',
  description: 'Stainless steel kettle, 1.7 litres, boil-dry protection.',
  language: 'en',
};
let kettleId: string;

test(
  'when a product upsert arrives with a sampled traceparent, then one trace continues it: gateway → ' +
    'catalog → MongoDB, catalog → similarity → embedder and Elasticsearch, the token checked in knowledge',
  async () => {
    const sent = traceparent();
    const res = await request('/api/knowledge/products?site_id=shop', {
      method: 'POST',
      body: kettle,
      headers: { traceparent: sent.header },
      token: await adminToken(conn, tenant), // not seen yet: checked in knowledge, not answered from the gateway's cache
    });
    expect(res.status).toBe(201);
    kettleId = res.json.id;

    const spans = await completeTrace(sent.traceId, [
      grpcServer('kb-catalog', 'kb.catalog.v1.CatalogService/UpsertProduct'),
      grpcServer('kb-similarity', 'kb.similarity.v1.SimilarityService/IndexProducts'),
      span('kb-similarity', 'bulk'),
      span('kb-similarity', /^embeddings /),
    ]);
    const root = expectContinued(spans, sent);
    const trace = new Trace(spans, sent.traceId);
    expect(root.name).toBe('POST /api/knowledge/products');
    expect(root.attributes['http.route']).toBe('/api/knowledge/products');

    const auth = trace.hop(root, 'kb-knowledge', 'kb.knowledge.v1.KnowledgeService/AuthenticateApiToken');
    expect(trace.below(auth, isMongo).map((s) => s.name)).toContain('findOne api_tokens');

    const catalog = trace.hop(root, 'kb-catalog', 'kb.catalog.v1.CatalogService/UpsertProduct');
    const writes = trace.below(catalog, isMongo);
    expect(writes.map((s) => s.name)).toContain('findOneAndUpdate products');
    for (const w of writes) expect(w.kind).toBe('CLIENT');
    // One span per operation: the driver's span of the same round trip is not beside it.
    expect(writes.map((s) => s.name)).not.toContain('findAndModify $cmd');

    const similarity = trace.hop(catalog, 'kb-similarity', 'kb.similarity.v1.SimilarityService/IndexProducts');
    const embedding = trace.one(span('kb-similarity', /^embeddings /), 'embedding span');
    expect(trace.under(embedding, similarity)).toBe(true);
    expect(embedding.attributes).toMatchObject({
      'gen_ai.operation.name': 'embeddings',
      'gen_ai.provider.name': 'local',
      'gen_ai.request.model': process.env.EMBEDDING_MODEL_NAME,
    });
    const es = trace.below(similarity, isElasticsearch);
    expect(es.map((s) => s.name)).toContain('bulk');
    for (const s of es) expect(s.kind).toBe('CLIENT');
    // The Elasticsearch client's own span is the operation; no HTTP span under it (undici is not instrumented).
    const bulk = trace.one(span('kb-similarity', 'bulk'), 'bulk');
    expect(trace.spans.filter((s) => s.parentSpanId === bulk.spanId)).toEqual([]);
    // Every span carries its service's name as the resource says it.
    for (const s of spans) expect(s.resource['service.name']).toBe(s.service);
  },
);

test(
  'when a similar search arrives with a sampled traceparent, then ' +
    'gateway → Elasticsearch (the read path, no catalog and no MongoDB) is one trace under it',
  async () => {
    const sent = traceparent();
    const res = await request('/api/knowledge/search/similar', {
      method: 'POST',
      body: { anchor_product_ids: [kettleId] },
      headers: { traceparent: sent.header },
    });
    expect(res.status).toBe(200);

    const spans = await completeTrace(sent.traceId, [span('kb-gateway', 'search', 'CLIENT')]);
    const roots = orphans(spans);
    expect(roots.map((s) => [s.service, s.kind, s.parentSpanId])).toEqual([['kb-gateway', 'SERVER', sent.parentId]]);
    const root = roots[0] as ReceivedSpan;
    // The gateway names its own span after the route (no Koa span per router layer).
    expect([root.name, root.attributes['http.route']]).toEqual([
      'POST /api/knowledge/search/similar',
      '/api/knowledge/search/similar',
    ]);
    const trace = new Trace(spans, sent.traceId);
    // The anchor's vectors (or, once kept, its version) and the kNN search, both from the gateway.
    const searches = trace.below(root, isElasticsearch);
    expect(searches.map((s) => s.name)).toEqual(expect.arrayContaining(['mget', 'search']));
    expect(spans.filter((s) => s.service === 'kb-catalog' || isMongo(s))).toEqual([]);
    // Only spans that tell something: no Koa middleware or router spans, no HTTP client span under
    // an Elasticsearch client span.
    expect(
      spans.filter((s) => s.attributes['koa.type'] !== undefined || /^(router|middleware) - /.test(s.name)),
    ).toEqual([]);
    expect(spans.filter((s) => searches.some((e) => e.spanId === s.parentSpanId))).toEqual([]);
  },
);

test(
  'when an entry is created with a sampled traceparent, then gateway → knowledge → ' +
    'MongoDB and knowledge → similarity → embedder and Elasticsearch are one trace under it',
  async () => {
    const sent = traceparent();
    const res = await request('/api/knowledge/knowledge-entries', {
      method: 'POST',
      body: {
        title: 'Kettle care',
        content: 'Descale the kettle with citric acid once a month.',
        category_id: category,
        visibility: 'internal',
      },
      headers: { traceparent: sent.header },
    });
    expect(res.status).toBe(201);

    const spans = await completeTrace(sent.traceId, [
      span('kb-gateway', /^POST /, 'SERVER'), // the gateway's spans may arrive after the services' (their own batch)
      grpcServer('kb-knowledge', 'kb.knowledge.v1.KnowledgeService/CreateEntry'),
      grpcServer('kb-similarity', 'kb.similarity.v1.SimilarityService/IndexEntries'),
      span('kb-similarity', 'bulk'),
      span('kb-similarity', /^embeddings /),
    ]);
    // No catalog in this one.
    const root = expectContinued(spans, sent, ['kb-gateway', 'kb-knowledge', 'kb-similarity']);
    const trace = new Trace(spans, sent.traceId);
    const knowledge = trace.hop(root, 'kb-knowledge', 'kb.knowledge.v1.KnowledgeService/CreateEntry');
    expect(trace.below(knowledge, isMongo).map((s) => s.name)).toContain('save knowledge_entries');
    const similarity = trace.hop(knowledge, 'kb-similarity', 'kb.similarity.v1.SimilarityService/IndexEntries');
    expect(trace.below(similarity, isElasticsearch).map((s) => s.name)).toContain('bulk');
    expect(trace.below(similarity, span('kb-similarity', /^embeddings /))).toHaveLength(1);
  },
);

test(
  'when an assistant calls an MCP tool with a sampled traceparent, then the trace continues it with an ' +
    'execute_tool span naming the version of every entry it was given',
  async () => {
    const created = await request('/api/knowledge/knowledge-entries', {
      method: 'POST',
      body: {
        title: 'Kettle warranty',
        content: 'Kettles carry a two-year warranty; the receipt is the proof of purchase.',
        category_id: category,
        visibility: 'internal',
        language: 'en',
      },
    });
    expect(created.status).toBe(201);
    const until = Date.now() + 30_000;
    while ((await request(`/api/knowledge/knowledge-entries/${created.json.id}`)).json.embedding_model == null) {
      if (Date.now() > until) throw new Error('the entry was not indexed within 30 s');
      await sleep(200);
    }
    const sent = traceparent();
    const res = await request('/api/knowledge/mcp', {
      method: 'POST',
      headers: { traceparent: sent.header, Accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'search_knowledge', arguments: { query: 'how long is the kettle warranty', limit: 3 } },
      },
    });
    expect(res.status).toBe(200);
    const hits = res.json.result.structuredContent.hits as { entry: { id: string; version: number } }[];
    expect(hits.map((h) => h.entry.id)).toContain(created.json.id);

    const tool = span('kb-gateway', 'execute_tool search_knowledge', 'INTERNAL');
    const retrieval = span('kb-gateway', 'retrieval knowledge-entries', 'INTERNAL');
    const access = 'kb.knowledge.v1.KnowledgeService/EntrySearchAccess';
    // The entry is indexed in its current version: the read path answers, asking knowledge about it.
    const spans = await completeTrace(sent.traceId, [tool, retrieval, grpcServer('kb-knowledge', access)]);
    const root = orphans(spans)[0]!;
    expect([root.service, root.kind, root.parentSpanId, root.name]).toEqual([
      'kb-gateway',
      'SERVER',
      sent.parentId,
      'POST /api/knowledge/mcp',
    ]);
    const trace = new Trace(spans, sent.traceId);
    const execute = trace.one(tool, 'execute_tool span');
    expect(trace.under(execute, root)).toBe(true);
    expect(execute.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'search_knowledge',
      'gen_ai.tool.call.id': '7',
      'mcp.method.name': 'tools/call',
      'kb.mcp.entries.count': hits.length,
    });
    expect(execute.attributes['kb.mcp.entries']).toEqual(hits.map((h) => `${h.entry.id}@${h.entry.version}`));
    // The search the tool made is below the tool's span: answered from the index, every hit
    // checked with the knowledge service (a gRPC hop under the search's span).
    const search = trace.one(retrieval, 'retrieval span');
    expect(trace.under(search, execute)).toBe(true);
    expect(search.attributes['kb.retrieval.answered_by']).toBe('index');
    expect(search.attributes['kb.retrieval.entry_versions']).toEqual(hits.map((h) => h.entry.version));
    const servers = spans.filter(grpcServer('kb-knowledge', access));
    expect(servers.length).toBeGreaterThan(0);
    for (const server of servers) {
      const client = spans.find((c) => c.spanId === server.parentSpanId)!;
      expect([client.service, client.kind, trace.under(client, search)]).toEqual(['kb-gateway', 'CLIENT', true]);
    }
  },
);

/** The JSON log lines of a process that carry `request_id`. */
async function logLines(proc: Process, requestId: string, min = 1): Promise<Record<string, unknown>[]> {
  const read = () =>
    logOf(proc)
      .split('\n')
      .filter((l) => l.includes(requestId))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const until = Date.now() + 5_000;
  while (read().length < min && Date.now() < until) await sleep(50);
  return read();
}

test(
  'when a request carries X-Request-Id and a traceparent, then the response ' +
    'echoes the request id and every service logs it with the trace id',
  async () => {
    const sent = traceparent();
    const requestId = uniqueId('req');
    const res: HttpResponse = await request(`/api/knowledge/products/${kettleId}`, {
      headers: { traceparent: sent.header, 'X-Request-Id': requestId },
      token: await adminToken(conn, tenant), // not seen yet: checked in knowledge, not answered from the gateway's cache
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe(requestId);

    // One line at the edge for the request: method, route template, status, duration, ids.
    const gatewayLines = await logLines('gateway', requestId);
    expect(gatewayLines).toEqual([
      expect.objectContaining({
        msg: 'request',
        level: 'info',
        method: 'GET',
        route: '/api/knowledge/products/:product_id',
        status: 200,
        ms: expect.any(Number),
        request_id: requestId,
        trace_id: sent.traceId,
      }),
    ]);
    // Behind it, a sampled request's calls are logged at info, beside their spans.
    for (const service of ['knowledge', 'catalog'] as const) {
      const calls = await logLines(service, requestId);
      expect(calls.length).toBeGreaterThan(0);
      for (const line of calls)
        expect(line).toMatchObject({ msg: 'call', level: 'info', request_id: requestId, trace_id: sent.traceId });
    }
    // A log line's span id is a span of that trace, so logs lead to the span they were written in.
    const spans = await completeTrace(sent.traceId, [
      grpcServer('kb-catalog', 'kb.catalog.v1.CatalogService/GetProduct'),
    ]);
    const [catalogLine] = await logLines('catalog', requestId);
    expect(spans.map((s) => s.spanId)).toContain(catalogLine?.span_id);
  },
);

test(
  'when the background indexer finds work, then its pass is a trace of its ' +
    'own (root span, gRPC and MongoDB calls under it), never part of a request',
  async () => {
    // Queue the product again, as a write whose inline indexing timed out would leave it.
    await conn.collection<{ _id: string }>('products').updateOne({ _id: kettleId }, { $set: { needs_index: true } });
    const isPass = span('kb-catalog', 'index pending products');
    await receiver.waitForSpans(
      (all) =>
        all.some(
          (s) =>
            isPass(s) &&
            receiver
              .spansOf(s.traceId)
              .some(grpcServer('kb-similarity', 'kb.similarity.v1.SimilarityService/IndexProducts')),
        ),
      10_000,
    );
    const pass = receiver.spans.find(
      (s) =>
        isPass(s) &&
        receiver
          .spansOf(s.traceId)
          .some(grpcServer('kb-similarity', 'kb.similarity.v1.SimilarityService/IndexProducts')),
    ) as ReceivedSpan;
    expect(pass.parentSpanId).toBeUndefined();
    expect(pass.attributes).toMatchObject({ 'kb.document.kind': 'products' });
    const spans = await completeTrace(pass.traceId, [span('kb-catalog', 'updateOne products')]);
    const trace = new Trace(spans, pass.traceId);
    trace.hop(pass, 'kb-similarity', 'kb.similarity.v1.SimilarityService/IndexProducts');
    expect(trace.below(pass, isMongo).map((s) => s.name)).toContain('updateOne products');
    expect(spans.some((s) => s.service === 'kb-gateway')).toBe(false);
  },
);

test(
  'when probes and timers run (/readyz, grpc.health.v1, the similarity ' +
    "service's dependency probe, idle indexer passes), then they export no spans",
  async () => {
    // beforeAll polled /readyz on both gateways (each fanning out grpc.health.v1 checks) until
    // ready; the similarity service probes Elasticsearch every 5 s; the indexers poll every 250 ms.
    const noise = (s: ReceivedSpan) =>
      /readyz|healthz/.test(s.name) ||
      /grpc\.health\.v1/.test(s.name) ||
      s.name === 'cluster.health' ||
      (s.service === 'kb-similarity' && !s.parentSpanId);
    expect(receiver.spans.filter(noise).map((s) => `${s.service}: ${s.name}`)).toEqual([]);
    // Every trace starts at a request or at an indexer pass that found work.
    const rootNames = new Set(receiver.spans.filter((s) => !s.parentSpanId).map((s) => `${s.service}: ${s.name}`));
    for (const name of rootNames)
      expect(name).toMatch(
        /^kb-gateway: (GET|POST|PUT|DELETE) \/api\/knowledge\/|^kb-(catalog|knowledge): (index pending|remove deleted) /,
      );
  },
);

test(
  'when the gateway samples with parentbased_traceidratio at 0, then a request exports no span in any ' +
    "service, with or without a client's sampled traceparent",
  async () => {
    const sampledPid = stack?.processes.sampledGateway?.child.pid;
    const fromSampledGateway = (s: ReceivedSpan) => s.resource['process.pid'] === sampledPid;

    // Without a traceparent the gateway decides: ratio 0, not sampled. The decision travels in
    // the traceparent it sends on (flags 00), so the services behind it record nothing either.
    const requestId = uniqueId('unsampled');
    expect(
      (
        await request(
          `/api/knowledge/products/${kettleId}`,
          { headers: { 'X-Request-Id': requestId } },
          'sampledGateway',
        )
      ).status,
    ).toBe(200);
    const [line] = await logLines('sampledGateway', requestId);
    const unsampledTrace = line?.trace_id as string;
    expect(unsampledTrace).toMatch(/^[0-9a-f]{32}$/);
    // The catalog saw the same (unsampled) trace id: context still propagates, only recording stops.
    // A successful call of an unsampled request is logged below info (the catalog here writes debug).
    expect((await logLines('catalog', requestId))[0]).toMatchObject({ trace_id: unsampledTrace, level: 'debug' });
    expect((await logLines('knowledge', requestId, 0)).filter((l) => l.msg === 'call')).toEqual([]);

    // A client's sampled traceparent is a wish, not a decision: at ratio 0 nothing is traced.
    const wished = traceparent();
    const res = await request(
      '/api/knowledge/products?site_id=shop',
      { method: 'POST', body: { ...kettle, title: 'Blue kettle, sampled' }, headers: { traceparent: wished.header } },
      'sampledGateway',
    );
    expect(res.status).toBe(200);

    // A request to the always-on gateway after it: once its trace is complete, the spans of the
    // two requests before it would have arrived too (same batch delay).
    const later = traceparent();
    expect(
      (await request('/api/knowledge/categories', { headers: { traceparent: later.header } }, 'gateway')).status,
    ).toBe(200);
    await completeTrace(later.traceId, [span('kb-gateway', /^GET /, 'SERVER')]);
    expect(receiver.spansOf(unsampledTrace)).toEqual([]);
    expect(receiver.spansOf(wished.traceId)).toEqual([]);
    expect(receiver.spans.filter(fromSampledGateway)).toEqual([]);
  },
);
