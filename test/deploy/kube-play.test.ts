/**
 * The Helm chart, proved by running what it renders: `helm template` for a tenant with values
 * for this machine (examples/podman-local.yaml: host networking on 127.0.0.1; free ports and the
 * test run's MongoDB and Elasticsearch
 * behind Secrets, the images from `npm run images`), then `podman kube play` of the rendered
 * Deployments and of the bootstrap Job's pod. Through the containerized gateway, as the
 * assistant would: an entry and products written and read back, a similar search; a request
 * carrying a W3C traceparent becomes one trace across the four services; each service's
 * Prometheus endpoint answers, and the indexer backlog rises while Elasticsearch is away and
 * falls back to zero after. `podman kube down` at the end.
 *
 * Needs podman and the images; without them the group is skipped with the reason in its title
 * (a failure instead under KB_REQUIRE_CONTAINER_TESTS=1, as in CI).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { ensureHelm, findEngineCli, imageName } from '@kb/deploy';
import { freePorts } from '@kb/devstack';
import { containersSkipReason, eventually } from '../support/containers';
import {
  createSecret,
  inspect,
  jobAsPod,
  KubePlay,
  logsOf,
  parseManifests,
  podman,
  removeSecret,
  runState,
  waitForExit,
  type KubeObject,
} from '../support/kube-play';
import { databaseUri, httpRequest, uniqueId, type HttpResponse, type RequestOptions } from '../support/stack';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { scrape, select, total, type Sample } from '../support/prometheus';
import { TcpProxy } from '../support/tcp-proxy';
import { elasticsearchNode } from '../support/elasticsearch-node';

const chart = path.resolve(__dirname, '../../charts/knowledge-service');
const COMPONENTS = ['gateway', 'knowledge', 'catalog', 'similarity'] as const;
type Component = (typeof COMPONENTS)[number];

function skipReason(): string | undefined {
  const reason =
    containersSkipReason() ??
    (findEngineCli() === 'podman' ? undefined : '`podman kube play` needs podman (this engine is not podman)');
  if (reason && process.env.KB_REQUIRE_CONTAINER_TESTS === '1')
    throw new Error(`KB_REQUIRE_CONTAINER_TESTS=1 but the deploy test cannot run: ${reason}`);
  return reason;
}
const skip = skipReason();
const suite = skip ? describe.skip : describe;

const release = uniqueId('kp').replace('-', '');
const tenant = uniqueId('deployed');
const db = uniqueId('kbdeploy');
const ports = {} as Record<Component, { port: number; metricsPort: number }>;
const secrets = {
  mongodb: `${release}-mongodb`,
  elasticsearch: `${release}-elasticsearch`,
  serviceAuth: `${release}-service-auth`,
};
let objects: KubeObject[] = [];
let deployments: KubePlay | undefined;
let bootstrap: KubePlay | undefined;
let bootstrapPod: KubeObject;
let elasticsearch: TcpProxy;
let receiver: OtlpReceiver;
let token = '';

const mongoUri = () => databaseUri(db);

const machineValues = path.join(chart, 'examples/podman-local.yaml');

/** Over examples/podman-local.yaml: this run's tenant, free ports, Secrets and index prefix. */
function values(): unknown {
  return {
    tenant: { id: tenant, host: `${tenant}.example.test` },
    // The images this run was given (KB_IMAGE_TAG, as the container tests read it; default local).
    image: { tag: process.env.KB_IMAGE_TAG ?? 'local' },
    mongodb: { existingSecret: secrets.mongodb, uriKey: 'uri' },
    elasticsearch: { existingSecret: secrets.elasticsearch, urlKey: 'url', indexPrefix: db },
    // podman's secretKeyRef cannot read a `kind: Secret` of the YAML: the operator's own, as a podman secret.
    serviceAuth: { existingSecret: secrets.serviceAuth },
    // The containers export their spans to this run's OTLP receiver, every trace kept.
    observability: { otlp: { endpoint: receiver.url, protocol: 'http/protobuf' }, sampling: { ratio: 1 } },
    logLevel: 'info',
    components: Object.fromEntries(COMPONENTS.map((c) => [c, ports[c]])),
  };
}

function helmTemplate(helm: string, valuesFile: string): string {
  const r = spawnSync(helm, ['template', release, chart, '-f', machineValues, '-f', valuesFile], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`helm template failed: ${r.stderr}`);
  return r.stdout;
}

const gateway = (p: string, init: RequestOptions = {}): Promise<HttpResponse> =>
  httpRequest(ports.gateway.port, `${tenant}.example.test`, `/api/knowledge${p}`, { token, ...init });

function containerOf(component: Component): string {
  const deployment = objects.find(
    (o) => o.kind === 'Deployment' && o.metadata.labels?.['app.kubernetes.io/component'] === component,
  ) as KubeObject;
  return KubePlay.containerName(deployment, deployment.spec.template.spec.containers[0].name);
}

const metricsOf = (component: Component): Promise<Sample[]> => scrape(ports[component].metricsPort);
const gauge = (samples: Sample[], name: string, labels: Record<string, string>) =>
  select(samples, name, labels)[0]?.value;

/** Polls `probe` until `ok` holds or `timeoutMs` passes; the last value either way. */
async function waitFor<T>(probe: () => Promise<T>, ok: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await probe();
  while (!ok(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    value = await probe();
  }
  return value;
}

const backlog = async () => {
  const [catalog, knowledge] = await Promise.all([metricsOf('catalog'), metricsOf('knowledge')]);
  return {
    products: gauge(catalog, 'kb_indexer_backlog_documents', { kb_document_kind: 'products' }),
    productsAge: gauge(catalog, 'kb_indexer_backlog_oldest_age', { kb_document_kind: 'products' }),
    entries: gauge(knowledge, 'kb_indexer_backlog_documents', { kb_document_kind: 'entries' }),
  };
};

/** An Elasticsearch client span: the client's own instrumentation, or the HTTP call under it. */
const isElasticsearch = (s: ReceivedSpan) =>
  s.kind === 'CLIENT' &&
  (s.attributes['db.system'] === 'elasticsearch' ||
    s.attributes['db.system.name'] === 'elasticsearch' ||
    String(s.attributes['server.port'] ?? s.attributes['net.peer.port'] ?? '') === String(elasticsearch.port));

function dumpLogs(): void {
  for (const c of COMPONENTS) {
    try {
      process.stderr.write(`--- ${c} (${containerOf(c)}) ---\n${logsOf(containerOf(c))}\n`);
    } catch {
      // not started
    }
  }
}

suite(
  skip ? `deployed with the Helm chart (skipped: ${skip})` : 'deployed with the Helm chart under podman kube play',
  () => {
    beforeAll(async () => {
      const picked = await freePorts(2 * COMPONENTS.length);
      COMPONENTS.forEach((c, i) => (ports[c] = { port: picked[2 * i]!, metricsPort: picked[2 * i + 1]! }));
      receiver = await startOtlpReceiver();
      elasticsearch = new TcpProxy(new URL(elasticsearchNode()));
      await elasticsearch.up();
      // The operator's Secrets, created before the install as the chart expects (never values).
      createSecret(secrets.mongodb, { uri: mongoUri() });
      createSecret(secrets.elasticsearch, { url: elasticsearch.url });
      createSecret(secrets.serviceAuth, {
        'service-secret': randomBytes(32).toString('base64url'),
        'system-secret': randomBytes(32).toString('base64url'),
      });

      const { helm } = await ensureHelm();
      const dir = mkdtempSync(path.join(tmpdir(), 'kb-values-'));
      const valuesFile = path.join(dir, 'values.yaml');
      writeFileSync(valuesFile, stringify(values()));
      objects = parseManifests(helmTemplate(helm, valuesFile));

      const job = objects.find((o) => o.kind === 'Job') as KubeObject;
      expect(job?.metadata.annotations?.['helm.sh/hook']).toMatch(/post-install/);
      bootstrapPod = jobAsPod(job);
      // What podman plays: the Deployments and the ConfigMaps they read. Services, Ingress,
      // PodDisruptionBudgets and ServiceAccounts are the cluster's business.
      deployments = new KubePlay(objects.filter((o) => o.kind === 'Deployment' || o.kind === 'ConfigMap'));
      deployments.play();
      // The post-install hook: once the Deployments exist, as Helm runs it.
      bootstrap = new KubePlay([...objects.filter((o) => o.kind === 'ConfigMap'), bootstrapPod]);
      bootstrap.play();

      try {
        await eventually(
          'the gateway container answers /readyz 200, every check up',
          () =>
            httpRequest(ports.gateway.port, 'localhost', '/readyz').then(
              (r) => r.status === 200 && r.json?.status === 'ready',
              () => false,
            ),
          120_000,
        );
      } catch (err) {
        dumpLogs();
        throw err;
      }
    }, 300_000);

    afterAll(async () => {
      deployments?.down();
      bootstrap?.down();
      removeSecret(secrets.mongodb);
      removeSecret(secrets.elasticsearch);
      removeSecret(secrets.serviceAuth);
      await elasticsearch?.down();
      await receiver?.close();
    }, 180_000);

    test('when the bootstrap Job has run, then the tenant exists, and running it again changes nothing (exit 0)', async () => {
      const container = KubePlay.containerName(bootstrapPod, bootstrapPod.spec.containers[0].name);
      expect({ code: waitForExit(container), logs: logsOf(container) }).toEqual({
        code: 0,
        logs: expect.stringContaining(`Created tenant ${tenant}`),
      });
      // Helm runs the hook again on every upgrade.
      bootstrap?.down();
      bootstrap?.play();
      expect(waitForExit(container)).toBe(0);
      expect(logsOf(container)).toContain(`Tenant ${tenant} already exists; left unchanged`);
    }, 120_000);

    test('when the pods run, then every container is the hardened, non-root, host-network container the chart rendered', () => {
      for (const c of COMPONENTS) {
        const info = inspect(containerOf(c));
        expect({ c, ...info, capDrop: info.capDrop.length > 10 }).toEqual({
          c,
          user: '1000:1000',
          readOnly: true,
          capAdd: [],
          capDrop: true,
          network: 'host',
          state: 'running',
          privileged: false,
          noNewPrivileges: expect.any(Boolean),
        });
      }
    });

    test(
      'when the first token is minted as NOTES.txt says (the knowledge ' +
        'image, node /app/admin.js), then the gateway accepts it',
      async () => {
        const minted = podman([
          'run',
          '--rm',
          '--network',
          'host',
          '--read-only',
          '--cap-drop',
          'ALL',
          '--user',
          '1000:1000',
          '--env',
          `MONGODB_URI=${mongoUri()}`,
          '--entrypoint',
          'node',
          `localhost/${imageName('knowledge')}`,
          '/app/admin.js',
          'token',
          'create',
          '--tenant',
          tenant,
          '--role',
          'Admin',
          '--name',
          'deploy test',
        ]);
        expect({ code: minted.code, stderr: minted.stderr }).toEqual({ code: 0, stderr: '' });
        token = minted.stdout.trimEnd().split('\n').at(-1) as string;
        expect(token).toMatch(/^kbt_/);
        expect((await gateway('/categories')).status).toBe(200);
        expect((await gateway('/categories', { token: 'kbt_nope' })).status).toBe(401);
      },
      60_000,
    );

    test(
      'when an entry and products are written through the gateway, then ' +
        'they read back and a similar search ranks the right neighbour first',
      async () => {
        const category = await gateway('/categories', { method: 'POST', body: { name: 'Deployed' } });
        expect(category.status).toBe(201);
        const entry = await gateway('/knowledge-entries', {
          method: 'POST',
          body: {
            title: 'Returns',
            content: 'Thirty days, receipt required.',
            category_id: category.json.id,
            visibility: 'internal',
          },
        });
        expect(entry.status).toBe(201);
        const read = await gateway(`/knowledge-entries/${entry.json.id}`);
        expect(read.json).toMatchObject({ title: 'Returns', content: 'Thirty days, receipt required.', version: 1 });

        const site = await gateway('/sites', { method: 'POST', body: { slug: 'shop', name: 'Shop' } });
        expect(site.status).toBe(201);
        const upsert = (external_id: string, title: string, description: string) =>
          gateway('/products?site_id=shop', {
            method: 'POST',
            body: { external_id, title, description, language: 'en', price_current: 19.9 },
          });
        const products = [
          await upsert('boot-1', 'Leather hiking boot', 'Waterproof leather boots for mountain hiking.'),
          await upsert('boot-2', 'Trail hiking shoe', 'Light waterproof shoes for hiking trails.'),
          await upsert('mug-1', 'Ceramic coffee mug', 'A large mug for coffee and tea.'),
        ];
        expect(products.map((p) => p.status)).toEqual([201, 201, 201]);
        expect((await gateway(`/products/${products[0]!.json.id}`)).json).toMatchObject({
          external_id: 'boot-1',
          price_current: '19.9',
        });
        const similar = await gateway('/search/similar', {
          method: 'POST',
          body: { anchor_product_ids: [products[0]!.json.id], limit: 2 },
        });
        expect(similar.status).toBe(200);
        expect(similar.json.products.map((p: { id: string }) => p.id)).toEqual([
          products[1]!.json.id,
          products[2]!.json.id,
        ]);
      },
      60_000,
    );
    test('when each container is scraped at its metrics port, then request, gRPC, dependency and embedding metrics are there', async () => {
      const [gw, knowledge, catalog, similarity] = await Promise.all(COMPONENTS.map(metricsOf));
      expect(
        total(gw!, 'http_server_request_duration_count', {
          http_route: '/api/knowledge/products',
          http_request_method: 'POST',
          http_response_status_code: '201',
        }),
      ).toBeGreaterThanOrEqual(3);
      for (const dependency of ['knowledge', 'catalog', 'similarity'])
        expect([dependency, gauge(gw!, 'kb_dependency_up', { kb_dependency_name: dependency })]).toEqual([
          dependency,
          1,
        ]);
      expect(
        total(catalog!, 'rpc_server_call_duration_count', {
          rpc_method: 'kb.catalog.v1.CatalogService/UpsertProduct',
          rpc_status_code: 'OK',
        }),
      ).toBeGreaterThanOrEqual(3);
      expect(total(knowledge!, 'rpc_server_call_duration_count', { rpc_status_code: 'OK' })).toBeGreaterThan(0);
      for (const [name, samples] of [
        ['knowledge', knowledge],
        ['catalog', catalog],
      ] as const)
        expect([name, gauge(samples!, 'kb_dependency_up', { kb_dependency_name: 'mongodb' })]).toEqual([name, 1]);
      expect(gauge(similarity!, 'kb_dependency_up', { kb_dependency_name: 'elasticsearch' })).toBe(1);
      expect(total(similarity!, 'kb_embedding_texts_total')).toBeGreaterThan(0);
    }, 60_000);

    test(
      'when Elasticsearch goes away, then writes still succeed and ' +
        'the backlog rises; when it is back, the backlog falls to zero',
      async () => {
        await elasticsearch.down();
        try {
          for (let i = 0; i < 3; i++) {
            const res = await gateway('/products?site_id=shop', {
              method: 'POST',
              body: { external_id: `outage-${i}`, title: `Outage kettle ${i}`, language: 'en' },
            });
            expect(res.status).toBe(201);
          }
          const waiting = await waitFor(backlog, (b) => (b.products ?? 0) >= 3 && (b.productsAge ?? 0) > 0, 30_000);
          expect(waiting.products).toBeGreaterThanOrEqual(3);
          expect(waiting.productsAge).toBeGreaterThan(0);
          expect(
            await waitFor(
              async () =>
                gauge(await metricsOf('similarity'), 'kb_dependency_up', { kb_dependency_name: 'elasticsearch' }),
              (v) => v === 0,
              30_000,
            ),
          ).toBe(0);
        } finally {
          await elasticsearch.up();
        }
        const drained = await waitFor(backlog, (b) => b.products === 0 && b.entries === 0, 90_000);
        expect(drained).toEqual({ products: 0, productsAge: 0, entries: 0 });
        // Indexed by the background indexer once Elasticsearch was back: searchable now.
        const found = await gateway('/search/products', { method: 'POST', body: { query: 'Outage kettle', limit: 5 } });
        expect(found.status).toBe(200);
        expect(
          found.json.products
            .map((p: { title: string }) => p.title)
            .filter((t: string) => t.startsWith('Outage kettle'))
            .sort(),
        ).toEqual(['Outage kettle 0', 'Outage kettle 1', 'Outage kettle 2']);
      },
      180_000,
    );
    test(
      'when a request arrives with a W3C traceparent, then one trace continues ' +
        'it through every container, with MongoDB and Elasticsearch spans',
      async () => {
        const traceId = randomBytes(16).toString('hex');
        const parentId = randomBytes(8).toString('hex');
        // A product upsert: gateway → catalog (MongoDB) → similarity (embedder, Elasticsearch).
        const res = await gateway('/products?site_id=shop', {
          method: 'POST',
          body: {
            external_id: 'traced-1',
            title: 'Traced rain jacket',
            description: 'A waterproof jacket for the trace.',
            language: 'en',
          },
          headers: { traceparent: `00-${traceId}-${parentId}-01` },
        });
        expect(res.status).toBe(201);
        const services = ['kb-gateway', 'kb-catalog', 'kb-similarity'];
        const spans = await receiver
          .waitForSpans((all) => {
            const mine = all.filter((s) => s.traceId === traceId);
            const mongo = (s: ReceivedSpan) =>
              s.service === 'kb-catalog' &&
              (s.attributes['db.system'] === 'mongodb' || s.attributes['db.system.name'] === 'mongodb');
            // Exporters batch per process: wait until every span's parent has arrived too.
            const ids = new Set(mine.map((s) => s.spanId));
            const complete = mine.every(
              (s) => s.parentSpanId === parentId || (s.parentSpanId && ids.has(s.parentSpanId)),
            );
            return (
              complete &&
              services.every((svc) => mine.some((s) => s.service === svc)) &&
              mine.some(mongo) &&
              mine.some(isElasticsearch)
            );
          }, 30_000)
          .then((all) => all.filter((s) => s.traceId === traceId))
          .catch((err: Error) => {
            throw new Error(`${err.message}\n${receiver.tree(traceId)}`);
          });
        const byId = new Map(spans.map((s) => [s.spanId, s]));
        // The gateway's server span continues the caller's span; every other span's parent is in the trace.
        const roots = spans.filter((s) => !s.parentSpanId || !byId.has(s.parentSpanId));
        expect({ roots: roots.map((s) => [s.service, s.kind, s.parentSpanId]), tree: receiver.tree(traceId) }).toEqual({
          roots: [['kb-gateway', 'SERVER', parentId]],
          tree: expect.any(String),
        });
        // Each service's server span is a child of a client span of its caller.
        for (const [callee, caller] of [
          ['kb-catalog', 'kb-gateway'],
          ['kb-similarity', 'kb-catalog'],
        ]) {
          const server = spans.find((s) => s.service === callee && s.kind === 'SERVER');
          expect([
            callee,
            server && byId.get(server.parentSpanId as string)?.service,
            server && byId.get(server.parentSpanId as string)?.kind,
          ]).toEqual([callee, caller, 'CLIENT']);
        }
        // MongoDB: the token and tenant looked up by knowledge, the product written by catalog.
        const mongo = new Set(
          spans
            .filter((s) => s.attributes['db.system'] === 'mongodb' || s.attributes['db.system.name'] === 'mongodb')
            .map((s) => s.service),
        );
        expect(mongo).toContain('kb-catalog');
        expect(spans.find(isElasticsearch)?.service).toBe('kb-similarity');
        // The install's resource attributes name the tenant on every span.
        for (const s of spans) expect([s.service, s.resource['kb.tenant']]).toEqual([s.service, tenant]);
      },
      60_000,
    );

    test(
      'when the knowledge container is killed after an acknowledged write, then podman ' +
        'restarts it, /readyz recovers and the write reads back intact',
      async () => {
        const category = await gateway('/categories', { method: 'POST', body: { name: 'Before the kill' } });
        expect(category.status).toBe(201);
        const body = {
          title: 'Exchanges',
          content: 'Within fourteen days, unworn, with the label attached.',
          category_id: category.json.id,
          visibility: 'internal',
        };
        const written = await gateway('/knowledge-entries', { method: 'POST', body });
        expect(written.status).toBe(201);

        const container = containerOf('knowledge');
        const before = runState(container);
        // The Deployment's restartPolicy (Always, the Kubernetes default) as podman applied it.
        expect({ status: before.status, restartPolicy: before.restartPolicy }).toEqual({
          status: 'running',
          restartPolicy: 'always',
        });
        // A crash, as the OOM killer would do it: SIGKILL to the container's process from outside.
        // (`podman kill` would not do: podman documents that a container stopped with
        // `podman kill` or `podman stop` is not restarted, whatever its restart policy.)
        process.kill(before.pid, 'SIGKILL');
        const killedAt = Date.now();

        const after = await waitFor(
          async () => runState(container),
          (s) => s.restartCount > before.restartCount && s.status === 'running',
          30_000,
        );
        expect({ restarted: after.restartCount > before.restartCount, status: after.status }).toEqual({
          restarted: true,
          status: 'running',
        });
        expect(after.startedAt).not.toBe(before.startedAt);
        expect(after.pid).not.toBe(before.pid);

        const ready = await waitFor(
          () =>
            // 200 with every check up: the gateway stays 200 ("degraded") while knowledge is away.
            httpRequest(ports.gateway.port, 'localhost', '/readyz').then(
              (r) => (r.json?.status === 'ready' ? r.status : 0),
              () => 0,
            ),
          (status) => status === 200,
          30_000,
        );
        expect(ready).toBe(200);
        process.stderr.write(`[kube-play] knowledge killed; back and /readyz 200 after ${Date.now() - killedAt} ms\n`);

        const read = await gateway(`/knowledge-entries/${written.json.id}`);
        expect({ status: read.status, ...read.json }).toMatchObject({
          status: 200,
          id: written.json.id,
          title: body.title,
          content: body.content,
          category_id: category.json.id,
          version: 1,
        });
        const next = await gateway('/knowledge-entries', {
          method: 'POST',
          body: { ...body, title: 'After the restart' },
        });
        expect(next.status).toBe(201);
        expect((await gateway(`/knowledge-entries/${next.json.id}`)).json).toMatchObject({
          title: 'After the restart',
        });
      },
      90_000,
    );
  },
);
