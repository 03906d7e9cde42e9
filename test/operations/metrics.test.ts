/**
 * Operators' metrics as Prometheus scrapes them: the four services started as their entry
 * points start them (the OpenTelemetry preload, OTEL_METRICS_EXPORTER=prometheus, each on its
 * own metrics port), requests through the gateway, then each /metrics read and checked.
 * Elasticsearch is taken away for this file only: the similarity service reaches it through a
 * TCP proxy that the outage test closes (the shared Elasticsearch is never touched).
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import mongoose from 'mongoose';
import { freePorts } from '@kb/devstack';
import { databaseUri, httpRequest, tenantWithAdminToken, uniqueId, type RequestOptions } from '../support/stack';
import { TcpProxy } from '../support/tcp-proxy';
import { scrape, select, total, type Sample } from '../support/prometheus';
import {
  ROOT as root,
  TELEMETRY_PRELOAD as telemetry,
  startProcessStack,
  type ProcessStack,
} from '../support/service-process';
import { elasticsearchNode } from '../support/elasticsearch-node';

const ES = new URL(elasticsearchNode());
const elasticsearch = new TcpProxy(ES);
const db = uniqueId('kbmetrics');
const tenant = uniqueId('metrics');
const SERVICES = ['similarity', 'knowledge', 'catalog', 'gateway'] as const;
type Service = (typeof SERVICES)[number];

let stack: ProcessStack | undefined;
const metricsPort = {} as Record<Service, number>;
let gatewayPort: number;
let conn: mongoose.Connection;
let token: string;
let category: string;

const mongoUri = () => databaseUri(db);

const request = (p: string, init: RequestOptions = {}) =>
  httpRequest(gatewayPort, `${tenant}.localhost`, p, { token, ...init });
const metricsOf = (name: Service): Promise<Sample[]> => scrape(metricsPort[name]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until `ok` or the deadline; returns the last value either way. */
async function waitFor<T>(probe: () => Promise<T>, ok: (v: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await probe();
  while (!ok(value) && Date.now() < deadline) {
    await sleep(250);
    value = await probe();
  }
  return value;
}

const gauge = (samples: Sample[], name: string, labels: Record<string, string>) =>
  select(samples, name, labels)[0]?.value;
const backlog = async (service: 'knowledge' | 'catalog', kind: string) => {
  const samples = await metricsOf(service);
  return {
    documents: gauge(samples, 'kb_indexer_backlog_documents', { kb_document_kind: kind }),
    age: gauge(samples, 'kb_indexer_backlog_oldest_age', { kb_document_kind: kind }),
  };
};

beforeAll(async () => {
  await elasticsearch.up();
  const ports = await freePorts(SERVICES.length);
  SERVICES.forEach((name, i) => (metricsPort[name] = ports[i]!));
  stack = await startProcessStack({
    mongoUri: mongoUri(),
    indexPrefix: db,
    elasticsearchUrl: elasticsearch.url,
    env: (service) => ({
      LOG_LEVEL: 'warn',
      OTEL_METRICS_EXPORTER: 'prometheus',
      OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1',
      OTEL_EXPORTER_PROMETHEUS_PORT: String(metricsPort[service]),
    }),
    indexing: { INDEXER_INTERVAL_MS: '250', INDEX_ON_WRITE_MS: '600' },
    gateways: { gateway: { GRPC_DEADLINE_MS: '5000' } },
    keepChars: 20_000,
    readyWithinMs: 90_000,
    avoidPorts: ports,
  });
  gatewayPort = stack.gatewayPorts.gateway as number;

  conn = await mongoose.createConnection(mongoUri()).asPromise();
  token = await tenantWithAdminToken(conn, tenant);
  expect((await request('/api/knowledge/sites', { method: 'POST', body: { slug: 'shop', name: 'Shop' } })).status).toBe(
    201,
  );
  const created = await request('/api/knowledge/categories', { method: 'POST', body: { name: 'Help' } });
  expect(created.status).toBe(201);
  category = created.json.id;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await conn?.close();
  await elasticsearch.down().catch(() => undefined);
});

const product = (key: string, title: string) => ({
  external_id: key,
  title,
  description: `${title}: stainless steel, 1.7 litres.`,
  language: 'en',
});
const entry = (title: string) => ({
  title,
  content: `${title}: how to descale it with citric acid.`,
  category_id: category,
  visibility: 'internal',
});

test(
  'when requests pass through the gateway, then every service serves Prometheus ' +
    'metrics: HTTP per route, gRPC per method, dependencies up, texts embedded',
  async () => {
    const upserted = await request('/api/knowledge/products?site_id=shop', {
      method: 'POST',
      body: product('kettle-1', 'Blue kettle'),
    });
    expect(upserted.status).toBe(201);
    const id = upserted.json.id as string;
    expect((await request(`/api/knowledge/products/${id}`)).status).toBe(200);
    expect((await request('/api/knowledge/products/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect(
      (await request('/api/knowledge/knowledge-entries', { method: 'POST', body: entry('Kettle care') })).status,
    ).toBe(201);
    expect((await request('/api/knowledge/categories')).status).toBe(200);

    const gateway = await metricsOf('gateway');
    const http = (route: string, method: string, status: string) =>
      total(gateway, 'http_server_request_duration_count', {
        http_route: route,
        http_request_method: method,
        http_response_status_code: status,
      });
    expect(http('/api/knowledge/products', 'POST', '201')).toBeGreaterThanOrEqual(1);
    expect(http('/api/knowledge/products/:product_id', 'GET', '200')).toBeGreaterThanOrEqual(1);
    expect(http('/api/knowledge/products/:product_id', 'GET', '404')).toBeGreaterThanOrEqual(1);
    expect(http('/api/knowledge/knowledge-entries', 'POST', '201')).toBeGreaterThanOrEqual(1);
    expect(
      select(gateway, 'http_server_request_duration_bucket', {
        http_route: '/api/knowledge/categories',
        http_request_method: 'GET',
        le: '+Inf',
      }),
    ).toHaveLength(1);
    // Route templates only: no id, tenant or token in any label value.
    const values = gateway.flatMap((s) => Object.values(s.labels));
    for (const secret of [id, tenant, category, token]) expect(values.filter((v) => v.includes(secret))).toEqual([]);
    // Scrapes of the metrics endpoint are not counted as requests.
    expect(
      select(gateway, 'http_server_request_duration_count').every(
        (s) => s.labels.http_route !== undefined || s.labels.http_response_status_code !== '200',
      ),
    ).toBe(true);
    expect(
      total(gateway, 'rpc_client_call_duration_count', {
        rpc_method: 'kb.catalog.v1.CatalogService/UpsertProduct',
        rpc_status_code: 'OK',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      total(gateway, 'rpc_client_call_duration_count', {
        rpc_method: 'kb.catalog.v1.CatalogService/GetProduct',
        rpc_status_code: 'NOT_FOUND',
        error_type: 'NOT_FOUND',
      }),
    ).toBeGreaterThanOrEqual(1);
    for (const dependency of ['knowledge', 'catalog', 'similarity'])
      expect([dependency, gauge(gateway, 'kb_dependency_up', { kb_dependency_name: dependency })]).toEqual([
        dependency,
        1,
      ]);

    const rpc = (samples: Sample[], method: string, code: string) =>
      total(samples, 'rpc_server_call_duration_count', {
        rpc_system_name: 'grpc',
        rpc_method: method,
        rpc_status_code: code,
      });
    const knowledge = await metricsOf('knowledge');
    expect(rpc(knowledge, 'kb.knowledge.v1.KnowledgeService/AuthenticateApiToken', 'OK')).toBeGreaterThanOrEqual(1);
    expect(rpc(knowledge, 'kb.knowledge.v1.KnowledgeService/CreateEntry', 'OK')).toBe(1);
    expect(
      select(knowledge, 'rpc_server_call_duration_bucket', {
        rpc_method: 'kb.knowledge.v1.KnowledgeService/CreateEntry',
      }).length,
    ).toBeGreaterThan(1);
    expect(gauge(knowledge, 'kb_dependency_up', { kb_dependency_name: 'mongodb' })).toBe(1);

    const catalog = await metricsOf('catalog');
    expect(rpc(catalog, 'kb.catalog.v1.CatalogService/UpsertProduct', 'OK')).toBe(1);
    expect(rpc(catalog, 'kb.catalog.v1.CatalogService/GetProduct', 'NOT_FOUND')).toBe(1);
    expect(gauge(catalog, 'kb_dependency_up', { kb_dependency_name: 'mongodb' })).toBe(1);

    // A write waits for its indexing for at most INDEX_ON_WRITE_MS (3 s): on a busy machine the
    // IndexProducts call it made may end after the write's answer.
    const indexProducts = (samples: Sample[]) => rpc(samples, 'kb.similarity.v1.SimilarityService/IndexProducts', 'OK');
    const similarity = await waitFor(
      () => metricsOf('similarity'),
      (s) => indexProducts(s) >= 1,
      10_000,
    );
    expect(indexProducts(similarity)).toBeGreaterThanOrEqual(1);
    expect(gauge(similarity, 'kb_dependency_up', { kb_dependency_name: 'elasticsearch' })).toBe(1);
    expect(gauge(similarity, 'kb_dependency_up', { kb_dependency_name: 'embedder' })).toBe(1);
    const model = { gen_ai_provider_name: 'local', gen_ai_request_model: process.env.EMBEDDING_MODEL_NAME as string };
    expect(total(similarity, 'kb_embedding_texts_total', model)).toBeGreaterThan(0);
    expect(
      total(similarity, 'gen_ai_client_operation_duration_count', { ...model, gen_ai_operation_name: 'embeddings' }),
    ).toBeGreaterThan(0);
    expect(
      total(similarity, 'kb_embedding_cache_lookups_total', { kb_embedding_cache_result: 'miss' }),
    ).toBeGreaterThan(0);

    // Both were indexed on write, so nothing waits.
    const idle = await waitFor(
      () => Promise.all([backlog('catalog', 'products'), backlog('knowledge', 'entries')]),
      ([p, e]) => p.documents === 0 && e.documents === 0,
      15_000,
    );
    expect(idle).toEqual([
      { documents: 0, age: 0 },
      { documents: 0, age: 0 },
    ]);
    // Nothing was refused by the index: the index-error gauges are served, and 0.
    expect([
      gauge(await metricsOf('catalog'), 'kb_indexer_errors_documents', { kb_document_kind: 'products' }),
      gauge(await metricsOf('knowledge'), 'kb_indexer_errors_documents', { kb_document_kind: 'entries' }),
    ]).toEqual([0, 0]);
  },
  60_000,
);

test(
  'when Elasticsearch is unreachable, then writes still succeed, the backlog ' +
    'gauges rise and elasticsearch reads 0; when it is back, the backlog falls to 0',
  async () => {
    await elasticsearch.down();
    for (let i = 0; i < 3; i++) {
      const res = await request('/api/knowledge/products?site_id=shop', {
        method: 'POST',
        body: product(`outage-${i}`, `Outage kettle ${i}`),
      });
      expect([res.status, res.headers['x-embeddings']]).toEqual([201, 'pending']);
    }
    for (let i = 0; i < 2; i++)
      expect(
        (await request('/api/knowledge/knowledge-entries', { method: 'POST', body: entry(`Outage note ${i}`) })).status,
      ).toBe(201);

    const waiting = await waitFor(
      () => Promise.all([backlog('catalog', 'products'), backlog('knowledge', 'entries')]),
      ([p, e]) => (p.documents ?? 0) >= 3 && (p.age ?? 0) > 0 && (e.documents ?? 0) >= 2 && (e.age ?? 0) > 0,
      20_000,
    );
    expect(waiting[0].documents).toBeGreaterThanOrEqual(3);
    expect(waiting[0].age).toBeGreaterThan(0);
    expect(waiting[1].documents).toBeGreaterThanOrEqual(2);
    expect(waiting[1].age).toBeGreaterThan(0);
    const esDown = await waitFor(
      async () => gauge(await metricsOf('similarity'), 'kb_dependency_up', { kb_dependency_name: 'elasticsearch' }),
      (v) => v === 0,
      20_000,
    );
    expect(esDown).toBe(0);
    // The catalog still answers: it is its own dependency that is down, not the catalog.
    expect(gauge(await metricsOf('catalog'), 'kb_dependency_up', { kb_dependency_name: 'mongodb' })).toBe(1);

    await elasticsearch.up();
    const caughtUp = await waitFor(
      () => Promise.all([backlog('catalog', 'products'), backlog('knowledge', 'entries')]),
      ([p, e]) => p.documents === 0 && e.documents === 0,
      60_000,
    );
    expect(caughtUp).toEqual([
      { documents: 0, age: 0 },
      { documents: 0, age: 0 },
    ]);
    expect(
      await waitFor(
        async () => gauge(await metricsOf('similarity'), 'kb_dependency_up', { kb_dependency_name: 'elasticsearch' }),
        (v) => v === 1,
        20_000,
      ),
    ).toBe(1);
  },
  120_000,
);

describe('the preload without and with a metrics exporter', () => {
  const preload = (env: Record<string, string>, script: string) =>
    new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      const { OTEL_METRICS_EXPORTER: _m, ...inherited } = process.env;
      const child = spawn(process.execPath, ['--require', telemetry, '-e', script], {
        cwd: root,
        env: { ...inherited, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('error', reject);
      child.on('exit', () => resolve({ stdout, stderr }));
    });
  const providerName =
    "process.stdout.write(require('@opentelemetry/api').metrics.getMeterProvider().constructor.name)";

  test('when OTEL_METRICS_EXPORTER is not set, then no meter provider is installed and nothing records', async () => {
    expect((await preload({}, providerName)).stdout).toBe('NoopMeterProvider');
  }, 30_000);

  test('when the metrics port is taken, then the service says so on stderr and keeps running', async () => {
    const busy: Server = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as { port: number }).port;
    try {
      const out = await preload(
        {
          OTEL_METRICS_EXPORTER: 'prometheus',
          OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1',
          OTEL_EXPORTER_PROMETHEUS_PORT: String(port),
          OTEL_SERVICE_NAME: 'kb-probe',
        },
        `setTimeout(() => { ${providerName}; process.exit(0); }, 500)`,
      );
      expect(out.stdout).toBe('MeterProvider');
      const line = JSON.parse(
        out.stderr
          .trim()
          .split('\n')
          .find((l) => l.includes('metrics not served')) ?? '{}',
      );
      expect(line).toMatchObject({ level: 'error', service: 'kb-probe', port });
      expect(line.msg).toMatch(/EADDRINUSE/);
    } finally {
      busy.close();
    }
  }, 30_000);
});
