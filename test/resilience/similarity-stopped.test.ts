/**
 * "Stopped, not dead": the similarity service is frozen (SIGSTOP), so its port still accepts
 * connections and open connections stay up, but nothing answers. That is harder on callers
 * than a service that is down (refused connections fail fast; here only deadlines end a call).
 * While it is frozen, writes are acknowledged quickly; once the gateway's watch has noticed
 * (within about 2 s), searches answer 503 with Retry-After in well under a second and reads that
 * do not need it keep working, /readyz stays 200 ("degraded") naming the similarity service; a
 * search already in flight when it froze ends with the same 503 once the watch turns down;
 * once it resumes (SIGCONT)
 * everything written meanwhile becomes searchable.
 *
 * The similarity service runs as its own process (the built entry point, as in production) so
 * it can be stopped like the probe did; knowledge, catalog and the gateway run in-process,
 * wired to it by hand with short deadlines.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';
import * as readline from 'node:readline';
import mongoose from 'mongoose';
import pino from 'pino';
import { loadKnowledgeConfig, startKnowledgeServer, type KnowledgeServer } from '@kb/knowledge';
import { loadCatalogConfig, startCatalogServer, type CatalogServer } from '@kb/catalog';
import { connectBackends, loadGatewayConfig, startGateway, type GatewayServer } from '@kb/gateway';
import {
  databaseUri,
  httpRequest,
  tenantWithAdminToken,
  uniqueId,
  type HttpResponse,
  type RequestOptions,
} from '../support/stack';

const SIMILARITY_DEADLINE_MS = 1000;
const INDEX_ON_WRITE_MS = 1000;
const GRPC_DEADLINE_MS = 3000;
const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const db = uniqueId('kbtest');
const tenant = uniqueId('frozen');

let child: ChildProcessWithoutNullStreams | undefined;
let knowledge: KnowledgeServer;
let catalog: CatalogServer;
let gateway: GatewayServer;
let backends: ReturnType<typeof connectBackends>;
let conn: mongoose.Connection;
let token: string;
let category: string;

const mongoUri = () => databaseUri(db);

/** Starts services/similarity/dist/main.js on a free port; resolves to its port once it listens. */
function startSimilarityProcess(): Promise<number> {
  const main = path.resolve(__dirname, '../../services/similarity/dist/main.js');
  child = spawn(process.execPath, [main], {
    env: {
      ...process.env,
      GRPC_HOST: '127.0.0.1',
      SIMILARITY_GRPC_PORT: '0',
      ELASTICSEARCH_INDEX_PREFIX: db,
      LOG_LEVEL: 'info',
    },
  });
  child.stderr.resume();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the similarity process did not start within 30 s')), 30_000);
    child!.once('exit', (code) => reject(new Error(`the similarity process exited with ${code}`)));
    // Its JSON log says where it listens; later lines are drained so the pipe never fills.
    readline.createInterface({ input: child!.stdout }).on('line', (line) => {
      const entry = (() => {
        try {
          return JSON.parse(line) as { msg?: string; port?: number };
        } catch {
          return {};
        }
      })();
      if (entry.msg === 'similarity service listening' && entry.port) {
        clearTimeout(timer);
        resolve(entry.port);
      }
    });
  });
}

beforeAll(async () => {
  const similarityAddr = `127.0.0.1:${await startSimilarityProcess()}`;
  const env = {
    ...process.env,
    GRPC_HOST: '127.0.0.1',
    MONGODB_URI: mongoUri(),
    SIMILARITY_GRPC_ADDR: similarityAddr,
    SIMILARITY_DEADLINE_MS: String(SIMILARITY_DEADLINE_MS),
    INDEX_ON_WRITE_MS: String(INDEX_ON_WRITE_MS),
    INDEXER_INTERVAL_MS: '200',
  };
  knowledge = await startKnowledgeServer(loadKnowledgeConfig({ ...env, KNOWLEDGE_GRPC_PORT: '0' }), logger);
  catalog = await startCatalogServer(loadCatalogConfig({ ...env, CATALOG_GRPC_PORT: '0' }), logger);
  const config = loadGatewayConfig({
    ...env,
    PORT: '0',
    HOST: '127.0.0.1',
    TENANT_MODE: 'host',
    GRPC_DEADLINE_MS: String(GRPC_DEADLINE_MS),
    KNOWLEDGE_GRPC_ADDR: `127.0.0.1:${knowledge.port}`,
    CATALOG_GRPC_ADDR: `127.0.0.1:${catalog.port}`,
    SIMILARITY_GRPC_ADDR: similarityAddr,
  });
  backends = connectBackends(config);
  gateway = await startGateway(config, backends, logger);
  conn = await mongoose.createConnection(mongoUri()).asPromise();
  token = await tenantWithAdminToken(conn, tenant);
  await waitFor(
    () => httpRequest(gateway.port, 'localhost', '/readyz'),
    (r) => r.json?.status === 'ready',
    30_000,
  );
  category = (await request('/api/knowledge/categories', { method: 'POST', body: { name: 'c' } })).json.id;
  expect((await request('/api/knowledge/sites', { method: 'POST', body: { slug: 'shop', name: 'Shop' } })).status).toBe(
    201,
  );
}, 60_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGCONT'); // a stopped process acts on SIGTERM only once it runs again
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000).unref())]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  await gateway?.stop();
  backends?.close();
  await catalog?.stop();
  await knowledge?.stop();
  await conn?.close();
});

const request = (p: string, init: RequestOptions = {}) =>
  httpRequest(gateway.port, `${tenant}.localhost`, p, { token, ...init });

async function timed(call: () => Promise<HttpResponse>): Promise<HttpResponse & { ms: number }> {
  const started = Date.now();
  const res = await call();
  return { ...res, ms: Date.now() - started };
}

async function waitFor<T>(probe: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await probe();
  while (!ok(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    value = await probe();
  }
  return value;
}

const entryBody = (title: string, content: string) => ({
  title,
  content,
  category_id: category,
  visibility: 'internal',
});
const productBody = (n: number, title: string) => ({
  external_id: `frozen-${n}`,
  title,
  description: `${title}, made of oak`,
  language: 'en',
});
const ids = (hits: { id?: string; entry?: { id: string } }[]) => hits.map((h) => h.entry?.id ?? h.id);

test(
  'when the similarity service is frozen, then writes are acknowledged, searches ' +
    'answer 503 at once (those in flight as soon as it is known down), reads go on, /readyz stays 200 naming it; ' +
    'after it resumes everything is searchable',
  async () => {
    // Before: an entry and a product, searchable.
    const before = await request('/api/knowledge/knowledge-entries', {
      method: 'POST',
      body: entryBody('Walrus care', 'Walruses need cold water.'),
    });
    expect(before.status).toBe(201);
    const anchor = await request('/api/knowledge/products?site_id=shop', {
      method: 'POST',
      body: productBody(0, 'Oak stool'),
    });
    expect(anchor.status).toBe(201);
    // Searchable (on a loaded machine the model's first embeddings can outlast the write's
    // bound; the indexers then catch up within a pass or two).
    expect(
      (
        await waitFor(
          () => request('/api/knowledge/search/entries', { method: 'POST', body: { query: 'walrus' } }),
          (r) => r.status === 200 && ids(r.json)[0] === before.json.id,
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await waitFor(
          () =>
            request('/api/knowledge/search/similar', {
              method: 'POST',
              body: { anchor_product_ids: [anchor.json.id] },
            }),
          (r) => r.status === 200,
        )
      ).status,
    ).toBe(200);

    child!.kill('SIGSTOP');
    const frozenAt = Date.now();
    try {
      // Searches already in flight when it froze (their query embedding waits on it): each ends
      // with the similarity service's 503 as soon as the gateway's watch turns down (worst case
      // 0.25 s + 2 timed-out probes of 0.7 s), not at its deadline with a 504.
      const inFlight = await Promise.all([
        timed(() => request('/api/knowledge/search/entries', { method: 'POST', body: { query: 'sea lions' } })),
        timed(() => request('/api/knowledge/search/products', { method: 'POST', body: { query: 'pine chair' } })),
      ]);
      for (const s of inFlight) {
        expect([s.status, s.headers['retry-after'], s.json]).toEqual([
          503,
          '5',
          { detail: 'The similarity service is unavailable' },
        ]);
        // 0.25 s + 2 probes timed out at 0.7 s (BACK_SERVICE_PROBE_TIMEOUT_MS), well before the 3 s deadline.
        expect(s.ms).toBeLessThan(2000);
      }
      process.stdout.write(
        `searches in flight at SIGSTOP: ${inFlight.map((s) => `${s.status} ${s.ms} ms`).join(', ')} ` +
          `(${Date.now() - frozenAt} ms after SIGSTOP)\n`,
      );
      // Writes: each answered within the index-on-write bound (the first of each service spends
      // it; after that the services know and stop waiting), none lost.
      const writes = [];
      for (const [i, name] of ['Narwhal', 'Beluga', 'Orca'].entries()) {
        writes.push(
          await timed(() =>
            request('/api/knowledge/knowledge-entries', {
              method: 'POST',
              body: entryBody(`${name} feeding`, `${name}s eat fish and squid.`),
            }),
          ),
        );
        writes.push(
          await timed(() =>
            request('/api/knowledge/products?site_id=shop', {
              method: 'POST',
              body: productBody(i + 1, `${name} oak table`),
            }),
          ),
        );
      }
      const edit = await timed(() =>
        request(`/api/knowledge/knowledge-entries/${before.json.id}`, {
          method: 'PUT',
          body: { content: 'Walruses need cold water and clams.' },
        }),
      );
      expect(writes.map((w) => w.status)).toEqual([201, 201, 201, 201, 201, 201]);
      expect(edit.status).toBe(200);
      for (const w of [...writes, edit]) expect(w.ms).toBeLessThan(INDEX_ON_WRITE_MS + 1000);
      expect(writes.slice(2).every((w) => w.ms < 500)).toBe(true); // known to be away: no waiting
      expect(writes.filter((w) => w.headers['x-embeddings']).map((w) => w.headers['x-embeddings'])).toEqual([
        'pending',
        'pending',
        'pending',
      ]);
      process.stdout.write(`writes while frozen (ms): ${[...writes, edit].map((w) => w.ms).join(', ')}\n`);

      // Searches: once the gateway's watch has noticed (a bounded health check that times out
      // twice), a 503 with Retry-After at once, not the deadline; reads that do not need the
      // similarity service keep working.
      const noticed = await waitFor(
        () => timed(() => httpRequest(gateway.port, 'localhost', '/readyz')),
        (r) => r.json?.checks?.similarity === 'unreachable',
        5000,
      );
      expect(noticed.json.checks.similarity).toBe('unreachable');
      const searches = [
        await timed(() => request('/api/knowledge/search/entries', { method: 'POST', body: { query: 'narwhal' } })),
        // The query's embedding comes from the similarity service.
        await timed(() => request('/api/knowledge/search/products', { method: 'POST', body: { query: 'oak table' } })),
      ];
      // Similar search needs no similarity service: the gateway's read path answers it from the index.
      const similar = await timed(() =>
        request('/api/knowledge/search/similar', { method: 'POST', body: { anchor_product_ids: [anchor.json.id] } }),
      );
      expect(similar.status).toBe(200);
      expect(similar.json.anchor_product_ids).toEqual([anchor.json.id]);
      expect(similar.ms).toBeLessThan(1000);
      for (const s of searches) {
        expect([s.status, s.headers['retry-after'], s.json]).toEqual([
          503,
          '5',
          { detail: 'The similarity service is unavailable' },
        ]);
        expect(s.ms).toBeLessThan(1000);
      }
      process.stdout.write(`searches while frozen: ${searches.map((s) => `${s.status} in ${s.ms} ms`).join(', ')}\n`);
      const reads = [
        await timed(() => request(`/api/knowledge/knowledge-entries/${before.json.id}`)),
        await timed(() => request('/api/knowledge/knowledge-entries')),
        await timed(() => request(`/api/knowledge/products/${anchor.json.id}`)),
      ];
      expect(reads.map((r) => r.status)).toEqual([200, 200, 200]);
      for (const r of reads) expect(r.ms).toBeLessThan(1000);

      // The gateway stays in its Service: it serves reads; the frozen service is named, not fatal.
      const ready = await timed(() => httpRequest(gateway.port, 'localhost', '/readyz'));
      expect(ready.status).toBe(200);
      expect(ready.json.status).toBe('degraded');
      expect(ready.json.checks.similarity).toBe('unreachable');
      expect(ready.json.degraded).toContain('similarity');
      expect(ready.json.detail).toMatch(/similarity unreachable/);
      expect(ready.ms).toBeLessThan(1000); // the watch knows: nobody waits on the frozen service
      expect((await httpRequest(gateway.port, 'localhost', '/healthz')).status).toBe(200);
    } finally {
      child!.kill('SIGCONT');
    }

    // Resumed: the indexers catch up; every write made while frozen is found.
    const resumed = Date.now();
    expect(
      (
        await waitFor(
          () => httpRequest(gateway.port, 'localhost', '/readyz'),
          (r) => r.json?.status === 'ready',
        )
      ).json.status,
    ).toBe('ready');
    for (const name of ['Narwhal', 'Beluga', 'Orca']) {
      const entries = await waitFor(
        () => request('/api/knowledge/search/entries', { method: 'POST', body: { query: `${name} feeding` } }),
        (r) => r.status === 200 && r.json[0]?.entry.title === `${name} feeding`,
      );
      expect(entries.json[0].entry.title).toBe(`${name} feeding`);
      const products = await waitFor(
        () => request('/api/knowledge/search/products', { method: 'POST', body: { query: `${name} oak table` } }),
        (r) => r.status === 200 && r.json.products[0]?.title === `${name} oak table`,
      );
      expect(products.json.products[0].title).toBe(`${name} oak table`);
    }
    const edited = await waitFor(
      () => request('/api/knowledge/search/entries', { method: 'POST', body: { query: 'walrus clams' } }),
      (r) => r.status === 200 && ids(r.json)[0] === before.json.id && r.json[0].entry.version === 2,
    );
    expect(edited.json[0].entry.content).toBe('Walruses need cold water and clams.');
    const similar = await request('/api/knowledge/search/similar', {
      method: 'POST',
      body: { anchor_product_ids: [anchor.json.id] },
    });
    expect(similar.status).toBe(200);
    expect(similar.json.products.length).toBe(3);
    // What reached the index while the indexers' calls timed out is confirmed on their next pass,
    // which comes later than the interval after failed passes (backoff): the queues empty soon after.
    const queued = async () => [
      await conn.collection('knowledge_entries').countDocuments({ index_pending: true }),
      await conn.collection('products').countDocuments({ needs_index: true }),
    ];
    expect(await waitFor(queued, ([entries, products]) => entries === 0 && products === 0)).toEqual([0, 0]);
    process.stdout.write(`searchable ${Date.now() - resumed} ms after the similarity service resumed\n`);
  },
  120_000,
);
