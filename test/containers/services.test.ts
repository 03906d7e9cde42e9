/**
 * The four service images, run as containers (testcontainers through a Docker engine or
 * podman's Docker API) against this test run's real backends, hardened as a Kubernetes pod
 * would run them (read-only root filesystem, no capabilities, host networking on 127.0.0.1).
 * What only a container shows: that the image starts and reports its health, serves real
 * calls, runs as non-root without a shell, drains in-flight calls on SIGTERM, and refuses bad
 * configuration with a one-line error and exit code 2.
 *
 * Needs the images from `npm run images`; without an engine or the images the whole group is
 * skipped, with the reason in its title (and in the run's last lines).
 */
import mongoose from 'mongoose';
import { freePorts } from '@kb/devstack';
import {
  containersSkipReason,
  eventually,
  execIn,
  grpcHealth,
  runToExit,
  signalAndWait,
  startService,
  type RunningService,
} from '../support/containers';
import { databaseUri, httpRequest, tenantWithAdminToken, uniqueId, type HttpResponse } from '../support/stack';
import { TcpProxy } from '../support/tcp-proxy';
import { elasticsearchNode } from '../support/elasticsearch-node';

const skip = containersSkipReason();
const suite = skip ? describe.skip : describe;

const db = uniqueId('kbcontainers');
const tenant = uniqueId('acme');
const mongoUri = databaseUri(db);

const running: RunningService[] = [];
const ports = { knowledge: 0, catalog: 0, similarity: 0, gateway: 0 };
let connection: mongoose.Connection;
let token: string;
/** The products the similar-search test writes, for the reindex test after it. */
const ids: string[] = [];

const addr = (port: number) => `127.0.0.1:${port}`;
function gatewayEnv(port: number): Record<string, string> {
  return {
    PORT: String(port),
    HOST: '127.0.0.1',
    TENANT_MODE: 'single',
    TENANT_ID: tenant,
    KNOWLEDGE_GRPC_ADDR: addr(ports.knowledge),
    CATALOG_GRPC_ADDR: addr(ports.catalog),
    SIMILARITY_GRPC_ADDR: addr(ports.similarity),
  };
}
const backServiceEnv = (service: 'knowledge' | 'catalog') => ({
  MONGODB_URI: mongoUri,
  GRPC_HOST: '127.0.0.1',
  [`${service.toUpperCase()}_GRPC_PORT`]: String(ports[service]),
  SIMILARITY_GRPC_ADDR: addr(ports.similarity),
});

function call(
  path: string,
  init: { method?: string; body?: unknown } = {},
  port = ports.gateway,
): Promise<HttpResponse> {
  return httpRequest(port, 'localhost', `/api/knowledge${path}`, { ...init, token });
}
const started = (service: string) => running.find((r) => r.service === service) as RunningService;

suite(skip ? `service containers (skipped: ${skip})` : 'service containers', () => {
  beforeAll(async () => {
    const names = Object.keys(ports) as (keyof typeof ports)[];
    const picked = await freePorts(names.length);
    names.forEach((k, i) => (ports[k] = picked[i]!));
    // The similarity service first: the other two index through it.
    running.push(
      await startService('similarity', {
        ELASTICSEARCH_URL: process.env.ELASTICSEARCH_URL as string,
        ELASTICSEARCH_INDEX_PREFIX: db,
        GRPC_HOST: '127.0.0.1',
        SIMILARITY_GRPC_PORT: String(ports.similarity),
      }),
    );
    running.push(
      ...(await Promise.all([
        startService('knowledge', backServiceEnv('knowledge')),
        startService('catalog', backServiceEnv('catalog')),
      ])),
    );
    running.push(await startService('gateway', gatewayEnv(ports.gateway)));

    // The admin CLI's own code against the same database: the bootstrap path of a real install.
    connection = await mongoose.createConnection(mongoUri, { serverSelectionTimeoutMS: 5000 }).asPromise();
    token = await tenantWithAdminToken(connection, tenant);
  }, 180_000);

  afterAll(async () => {
    await Promise.allSettled(running.map((r) => r.container.stop({ timeout: 10_000 })));
    await connection?.close();
  }, 60_000);

  test('when the four images start, then each back service is SERVING on grpc.health.v1 and the gateway is ready', async () => {
    for (const service of ['knowledge', 'catalog', 'similarity'] as const) {
      await eventually(`${service} SERVING`, async () => (await grpcHealth(addr(ports[service]))) === 'SERVING');
    }
    await eventually('gateway /readyz 200 ready (every check up)', async () => {
      const res = await httpRequest(ports.gateway, 'localhost', '/readyz');
      return res.status === 200 && res.json?.status === 'ready';
    });
    expect((await httpRequest(ports.gateway, 'localhost', '/healthz')).status).toBe(200);
  });

  test(
    'when an entry is created through the gateway container with ' +
      'a token from the admin CLI, then it reads back as created',
    async () => {
      const category = await call('/categories', { method: 'POST', body: { name: 'Shipping' } });
      expect(category.status).toBe(201);
      const created = await call('/knowledge-entries', {
        method: 'POST',
        body: { title: 'How to ship', content: 'Use **DHL**.', category_id: category.json.id, visibility: 'internal' },
      });
      expect(created.status).toBe(201);
      expect(created.headers.etag).toBe('"1"');
      const read = await call(`/knowledge-entries/${created.json.id}`);
      expect(read.status).toBe(200);
      expect(read.json).toMatchObject({
        id: created.json.id,
        title: 'How to ship',
        tenant_id: tenant,
        version: 1,
        visibility: 'internal',
      });
      expect((await httpRequest(ports.gateway, 'localhost', '/api/knowledge/categories')).status).toBe(401);
    },
  );

  test('when products are upserted through the gateway container, then a similar search finds the nearest one', async () => {
    expect((await call('/sites', { method: 'POST', body: { slug: 'shop', name: 'Shop' } })).status).toBe(201);
    const products = [
      {
        external_id: 'trail-1',
        title: 'Trail running shoe',
        description: 'Lightweight trail running shoe with a grippy outsole for muddy mountain paths.',
      },
      {
        external_id: 'trail-2',
        title: 'Mountain running shoe',
        description: 'Cushioned running shoe for rocky trails and long mountain runs.',
      },
      {
        external_id: 'espresso',
        title: 'Espresso machine',
        description: 'Dual boiler espresso machine with a pressure gauge and steam wand.',
      },
    ];
    for (const p of products) {
      const res = await call('/products?site_id=shop', {
        method: 'POST',
        body: { ...p, language: 'en', price_current: 99.9 },
      });
      expect(res.status).toBe(201);
      expect(res.headers['x-embeddings']).toBe('recomputed');
      ids.push(res.json.id);
    }
    expect((await call(`/products/${ids[0]}`)).json.price_current).toBe('99.9');
    const similar = await call('/search/similar', { method: 'POST', body: { anchor_product_ids: [ids[0]], limit: 2 } });
    expect(similar.status).toBe(200);
    expect(similar.json.products.map((p: { id: string }) => p.id)).toEqual([ids[1], ids[2]]);
  });

  test(
    'when the knowledge image runs the admin CLI to reindex products, then ' +
      'it exits 0 and similar search answers the same from the new index',
    async () => {
      const similar = () =>
        call('/search/similar', { method: 'POST', body: { anchor_product_ids: [ids[0]], limit: 2 } });
      const before = await similar();
      // The one image that carries the admin CLI (no shell, no npm): the knowledge container's
      // environment names MongoDB and the similarity service; products are the catalog's operations.
      // A reindex needs the system credential, which the admin Job gets and the service does not.
      const { exitCode, output } = await execIn(
        started('knowledge'),
        ['/usr/local/bin/node', '/app/admin.js', 'reindex', '--kind', 'products'],
        { SERVICE_SYSTEM_SECRET: process.env.SERVICE_SYSTEM_SECRET as string },
      );
      expect({ exitCode, output }).toEqual({
        exitCode: 0,
        output: expect.stringMatching(/Reindexed 3 products into \S+ \(alias \S+\)/),
      });
      const after = await similar();
      expect(after.status).toBe(200);
      expect(after.json.products.map((p: { id: string }) => p.id)).toEqual(
        before.json.products.map((p: { id: string }) => p.id),
      );
    },
  );

  test('when each container runs, then it is not root, nothing is writable (not even /tmp) and it has no shell', async () => {
    const probe =
      `
      const fs = require('fs');
      const tryWrite = (f) => { try { fs.writeFileSync(f, 'x'); return 'written'; } catch (e) { return e.code; } };
      console.log(JSON.stringify({ uid: process.getuid(), gid: process.getgid(), app: tryWrite('/app/probe'), ` +
      `root: tryWrite('/probe'), tmp: tryWrite('/tmp/probe'),
        shell: fs.existsSync('/bin/sh') || fs.existsSync('/usr/bin/sh'), npm: fs.existsSync('/usr/local/bin/npm') }));`;
    for (const r of running) {
      const { exitCode, output } = await execIn(r, ['/usr/local/bin/node', '-e', probe]);
      expect(exitCode).toBe(0);
      const seen = JSON.parse(output.slice(output.indexOf('{')));
      expect({ service: r.service, ...seen }).toEqual({
        service: r.service,
        uid: 1000,
        gid: 1000,
        app: 'EROFS',
        root: 'EROFS',
        tmp: 'EROFS',
        shell: false,
        npm: false,
      });
    }
  });

  test(
    'when MongoDB or Elasticsearch is unreachable at start, then the service stays up and ready ' +
      '(SERVING), its dependency NOT_SERVING, and that turns SERVING once it is back',
    async () => {
      const mongoProxy = new TcpProxy(new URL(process.env.MONGODB_URI as string));
      const esProxy = new TcpProxy(new URL(elasticsearchNode()));
      // Ports reserved but nothing listening yet: the backends are "down".
      const [mongoPort, esPort, knowledgePort, similarityPort] = (await freePorts(4, Object.values(ports))) as [
        number,
        number,
        number,
        number,
      ];
      mongoProxy.port = mongoPort;
      esProxy.port = esPort;
      const proxiedMongo = new URL(mongoUri);
      proxiedMongo.port = String(mongoProxy.port);
      const [knowledge, similarity] = await Promise.all([
        startService('knowledge', {
          ...backServiceEnv('knowledge'),
          MONGODB_URI: proxiedMongo.toString(),
          KNOWLEDGE_GRPC_PORT: String(knowledgePort),
        }),
        startService('similarity', {
          ELASTICSEARCH_URL: `http://127.0.0.1:${esProxy.port}`,
          ELASTICSEARCH_INDEX_PREFIX: db,
          GRPC_HOST: '127.0.0.1',
          SIMILARITY_GRPC_PORT: String(similarityPort),
        }),
      ]);
      try {
        for (let i = 0; i < 3; i++) {
          // Readiness is the pod's own: a shared dependency down never takes the replicas out of the Service.
          expect(await grpcHealth(addr(knowledgePort))).toBe('SERVING');
          expect(await grpcHealth(addr(knowledgePort), 'dependency:mongodb')).toBe('NOT_SERVING');
          expect(await grpcHealth(addr(similarityPort))).toBe('SERVING');
          expect(await grpcHealth(addr(similarityPort), 'dependency:elasticsearch')).toBe('NOT_SERVING');
          await new Promise((r) => setTimeout(r, 1000));
        }
        await Promise.all([mongoProxy.up(), esProxy.up()]);
        await eventually(
          'knowledge dependency:mongodb SERVING after MongoDB is back',
          async () => (await grpcHealth(addr(knowledgePort), 'dependency:mongodb')) === 'SERVING',
        );
        await eventually(
          'similarity dependency:elasticsearch SERVING after Elasticsearch is back',
          async () => (await grpcHealth(addr(similarityPort), 'dependency:elasticsearch')) === 'SERVING',
        );
      } finally {
        await Promise.allSettled([
          knowledge.container.stop({ timeout: 10_000 }),
          similarity.container.stop({ timeout: 10_000 }),
        ]);
        await Promise.allSettled([mongoProxy.down(), esProxy.down()]);
      }
    },
    90_000,
  );

  test('when the configuration is bad, then the container exits 2 with one line naming the variable', async () => {
    const cases = [
      { service: 'knowledge', env: {}, variable: 'MONGODB_URI' },
      { service: 'knowledge', env: { MONGODB_URI: 'localhost:27017' }, variable: 'MONGODB_URI' },
      // Passes the schema, but the driver cannot parse it (an unescaped ':' in the password).
      { service: 'catalog', env: { MONGODB_URI: 'mongodb://kb:s3cret:x@127.0.0.1:1/kb' }, variable: 'MONGODB_URI' },
      {
        service: 'catalog',
        env: { MONGODB_URI: 'mongodb://127.0.0.1:1/x', CATALOG_GRPC_PORT: 'seventy' },
        variable: 'CATALOG_GRPC_PORT',
      },
      { service: 'similarity', env: {}, variable: 'ELASTICSEARCH_URL' },
      { service: 'gateway', env: { PORT: 'eighty' }, variable: 'PORT' },
    ] as const;
    for (const c of cases) {
      const { code, output } = await runToExit(c.service, c.env);
      const lines = output.trim().split('\n');
      expect({ service: c.service, code, lines: lines.length }).toEqual({ service: c.service, code: 2, lines: 1 });
      expect(lines[0]).toContain(c.variable);
      // The message names the setting, never its value (a connection string may carry a password).
      for (const value of Object.values(c.env)) expect(output).not.toContain(value);
    }
  }, 120_000);

  /**
   * Four bulk upserts of 15 new products each (each waits for its embeddings, so they last a
   * while), SIGTERM to `target` once all four have reached the catalog; every call must be answered with
   * all its products created, and the process must exit 0 well within the grace period.
   */
  async function drainDuring(target: RunningService, gatewayPort: number, prefix: string): Promise<void> {
    const batches = Array.from({ length: 4 }, (_, b) =>
      call(
        '/products/bulk?site_id=shop',
        {
          method: 'POST',
          body: {
            products: Array.from({ length: 15 }, (_, i) => ({
              external_id: `${prefix}-${b}-${i}`,
              title: `Drain ${prefix} ${b}-${i}`,
              language: 'en',
              description: `Item ${i} of batch ${b}: a waterproof hiking jacket, size ${i}.`,
            })),
          },
        },
        gatewayPort,
      ),
    );
    // SIGTERM once every call has reached the catalog (its first products are stored): a call
    // still on its way through the gateway when the catalog drains is refused with 503, as it
    // should be, and would test nothing here.
    await eventually(
      'every batch reached the catalog',
      async () => {
        const counts = await Promise.all(
          [0, 1, 2, 3].map((b) =>
            connection
              .collection('products')
              .countDocuments({ tenant_id: tenant, external_id: { $regex: `^${prefix}-${b}-` } }),
          ),
        );
        return counts.every((n) => n > 0);
      },
      10_000,
    );
    const t0 = Date.now();
    const exit = signalAndWait(target, 'SIGTERM');
    const answers = await Promise.all(batches);
    // What a refused batch was told (its error body), so a failure names its cause.
    expect(answers.map((a) => (a.status === 200 ? 200 : { status: a.status, body: a.json }))).toEqual([
      200, 200, 200, 200,
    ]);
    for (const a of answers) expect(a.json.results.every((r: { status: string }) => r.status === 'created')).toBe(true);
    expect(await exit).toBe(0);
    // The process bounds its shutdown at 10 s (SHUTDOWN_BOUND_MS); the engine's kill and wait add
    // their own latency on a busy machine. The pod's grace period is 20 s.
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(target.output()).toContain('shutting down');
    const stored = await connection
      .collection('products')
      .countDocuments({ tenant_id: tenant, external_id: { $regex: `^${prefix}-` } });
    expect(stored).toBe(60);
  }

  test('when SIGTERM reaches the gateway during in-flight calls, then every call is answered and it exits 0', async () => {
    const port = (await freePorts(1, Object.values(ports)))[0]!;
    const gateway = await startService('gateway', gatewayEnv(port));
    await eventually(
      'second gateway ready',
      async () => (await httpRequest(port, 'localhost', '/readyz')).json?.status === 'ready',
    );
    await drainDuring(gateway, port, 'gw');
  }, 60_000);

  test('when SIGTERM reaches the catalog during in-flight calls, then every call completes, nothing is lost and it exits 0', async () => {
    const catalog = started('catalog');
    await drainDuring(catalog, ports.gateway, 'cat');
    running.splice(running.indexOf(catalog), 1);
  }, 60_000);
});
