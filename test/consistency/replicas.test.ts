/**
 * Two replicas of every service on one MongoDB database and one Elasticsearch: rules that must
 * hold for a tenant hold across them (docs/architecture.md, "Across replicas"). Each replica is
 * a gateway with its own knowledge and catalog services (in-process) and its own similarity
 * service (a process of its own, so it can be frozen with SIGSTOP as a hung pod would be).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';
import * as readline from 'node:readline';
import mongoose from 'mongoose';
import pino from 'pino';
import { loadKnowledgeConfig, startKnowledgeServer, type KnowledgeServer } from '@kb/knowledge';
import { loadCatalogConfig, startCatalogServer, type CatalogServer } from '@kb/catalog';
import { connectBackends, loadGatewayConfig, startGateway, type GatewayServer } from '@kb/gateway';
import { databaseUri, httpRequest, tenantWithAdminToken, uniqueId, type RequestOptions } from '../support/stack';
import { elasticsearchNode } from '../support/elasticsearch-node';

const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const db = uniqueId('kbtest');
const tenant = uniqueId('replicas');
const mongoUri = databaseUri(db);

interface Replica {
  similarity: ChildProcessWithoutNullStreams;
  knowledge: KnowledgeServer;
  catalog: CatalogServer;
  gateway: GatewayServer;
  backends: ReturnType<typeof connectBackends>;
}
const replicas: Replica[] = [];
let conn: mongoose.Connection;
let token: string;
let category: string;
let siteId: string;

/** services/similarity/dist/main.js as a process on a free port; resolves once it listens. */
function startSimilarityProcess(): Promise<{ child: ChildProcessWithoutNullStreams; port: number }> {
  const main = path.resolve(__dirname, '../../services/similarity/dist/main.js');
  const child = spawn(process.execPath, [main], {
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
    child.once('exit', (code) => reject(new Error(`the similarity process exited with ${code}`)));
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      let entry: { msg?: string; port?: number } = {};
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        // not a log line
      }
      if (entry.msg === 'similarity service listening' && entry.port) {
        clearTimeout(timer);
        resolve({ child, port: entry.port });
      }
    });
  });
}

async function startReplica(): Promise<Replica> {
  const similarity = await startSimilarityProcess();
  const similarityAddr = `127.0.0.1:${similarity.port}`;
  const env = {
    ...process.env,
    GRPC_HOST: '127.0.0.1',
    MONGODB_URI: mongoUri,
    SIMILARITY_GRPC_ADDR: similarityAddr,
    SIMILARITY_DEADLINE_MS: '2000',
    INDEX_ON_WRITE_MS: '1000',
    INDEXER_INTERVAL_MS: '200',
  };
  const knowledge = await startKnowledgeServer(loadKnowledgeConfig({ ...env, KNOWLEDGE_GRPC_PORT: '0' }), logger);
  const catalog = await startCatalogServer(loadCatalogConfig({ ...env, CATALOG_GRPC_PORT: '0' }), logger);
  const config = loadGatewayConfig({
    ...env,
    PORT: '0',
    HOST: '127.0.0.1',
    TENANT_MODE: 'host',
    GRPC_DEADLINE_MS: '5000',
    KNOWLEDGE_GRPC_ADDR: `127.0.0.1:${knowledge.port}`,
    CATALOG_GRPC_ADDR: `127.0.0.1:${catalog.port}`,
    SIMILARITY_GRPC_ADDR: similarityAddr,
  });
  const backends = connectBackends(config);
  const gateway = await startGateway(config, backends, logger);
  return { similarity: similarity.child, knowledge, catalog, gateway, backends };
}

async function stopReplica(r: Replica): Promise<void> {
  if (r.similarity.exitCode === null) {
    r.similarity.kill('SIGCONT');
    const exited = new Promise((done) => r.similarity.once('exit', done));
    r.similarity.kill('SIGTERM');
    await Promise.race([exited, new Promise((done) => setTimeout(done, 5000).unref())]);
    if (r.similarity.exitCode === null) r.similarity.kill('SIGKILL');
  }
  await r.gateway.stop();
  r.backends.close();
  await r.catalog.stop();
  await r.knowledge.stop();
}

const request = (replica: number, p: string, init: RequestOptions = {}) =>
  httpRequest(replicas[replica]!.gateway.port, `${tenant}.localhost`, p, { token, ...init });

async function waitFor<T>(probe: () => Promise<T>, ok: (v: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await probe();
  while (!ok(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    value = await probe();
  }
  return value;
}

const esUrl = () => elasticsearchNode();
async function es<T>(p: string, body?: unknown): Promise<T> {
  const res = await fetch(`${esUrl()}${p}`, {
    method: body ? 'POST' : 'GET',
    headers: { 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return (await res.json()) as T;
}
/** Index operations Elasticsearch has done on the products indices of this run (primaries). */
async function productIndexOperations(): Promise<number> {
  const stats = await es<{ _all: { primaries: { indexing?: { index_total: number } } } }>(
    `/${db}-products-*/_stats/indexing`,
  );
  return stats._all.primaries.indexing?.index_total ?? 0;
}

beforeAll(async () => {
  replicas.push(await startReplica(), await startReplica());
  conn = await mongoose.createConnection(mongoUri).asPromise();
  token = await tenantWithAdminToken(conn, tenant);
  for (const i of [0, 1])
    await waitFor(
      () => httpRequest(replicas[i]!.gateway.port, 'localhost', '/readyz'),
      (r) => r.status === 200,
      30_000,
    );
  category = (await request(0, '/api/knowledge/categories', { method: 'POST', body: { name: 'c' } })).json.id;
  siteId = (await request(1, '/api/knowledge/sites', { method: 'POST', body: { slug: 'shop', name: 'Shop' } })).json.id;
}, 90_000);

afterAll(async () => {
  await Promise.all(replicas.map(stopReplica));
  await conn?.close();
});

describe('two replicas of every service on one database', () => {
  test('when skills are created concurrently on both replicas, then the tenant has one skill index naming every skill', async () => {
    const created = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        request(i % 2, '/api/knowledge/knowledge-entries', {
          method: 'POST',
          body: {
            type: 'skill',
            title: `Skill ${i}`,
            content: `How to do task ${i}.`,
            category_id: category,
            language: 'en',
            visibility: 'internal',
            metadata: { trigger_description: `when asked for task ${i}` },
          },
        }),
      ),
    );
    expect(created.map((r) => r.status)).toEqual(created.map(() => 201));
    const indexes = await conn
      .collection('knowledge_entries')
      .find({ tenant_id: tenant, type: 'skill_index' })
      .toArray();
    expect(indexes).toHaveLength(1);
    const named = (indexes[0]!.metadata as { skills: { id: string }[] }).skills.map((s) => s.id).sort();
    expect(named).toEqual(created.map((r) => r.json.id as string).sort());
  }, 60_000);

  test('when site assignments race edits on the other replica, then the index holds the sites MongoDB holds', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await request(0, '/api/knowledge/knowledge-entries', {
        method: 'POST',
        body: {
          type: 'knowledge',
          title: `Entry ${i}`,
          content: `Text ${i}.`,
          category_id: category,
          language: 'en',
          visibility: 'internal',
        },
      });
      expect(res.status).toBe(201);
      ids.push(res.json.id as string);
    }
    // Edits on replica 1 while replica 0 assigns the site to each entry, one by one.
    await Promise.all([
      (async () => {
        for (const id of ids)
          expect(
            (await request(0, `/api/knowledge/sites/${siteId}/knowledge`, { method: 'PUT', body: { entry_ids: [id] } }))
              .status,
          ).toBe(200);
      })(),
      (async () => {
        for (let round = 0; round < 2; round++)
          for (const id of ids)
            expect(
              (
                await request(1, `/api/knowledge/knowledge-entries/${id}`, {
                  method: 'PUT',
                  body: { summary: `r${round}` },
                })
              ).status,
            ).toBe(200);
      })(),
    ]);
    const queued = () =>
      conn
        .collection('knowledge_entries')
        .countDocuments({ tenant_id: tenant, _id: { $in: ids }, index_pending: true } as never);
    expect(await waitFor(queued, (n) => n === 0, 30_000)).toBe(0);
    await es(`/${db}-entries-*/_refresh`, {});
    const hits = await es<{ hits: { hits: { _id: string; _source: { site_ids: string[] } }[] } }>(
      `/${db}-entries-*/_search`,
      { size: 50, query: { ids: { values: ids } }, _source: ['site_ids'] },
    );
    const stored = await conn
      .collection('knowledge_entries')
      .find({ _id: { $in: ids } } as never, { projection: { site_ids: 1 } })
      .toArray();
    expect(stored.every((e) => (e.site_ids as string[]).includes(siteId))).toBe(true);
    expect(Object.fromEntries(hits.hits.hits.map((h) => [h._id, h._source.site_ids]))).toEqual(
      Object.fromEntries(stored.map((e) => [String(e._id), e.site_ids])),
    );
  }, 90_000);

  test('when products are written while both similarity replicas are frozen, then each is indexed about once', async () => {
    const before = await productIndexOperations();
    for (const r of replicas) r.similarity.kill('SIGSTOP');
    const count = 40;
    try {
      const written = await Promise.all(
        Array.from({ length: count }, (_, i) =>
          request(i % 2, `/api/knowledge/products?site_id=${siteId}`, {
            method: 'POST',
            body: {
              external_id: `p-${i}`,
              title: `Product ${i}`,
              language: 'en',
              description: `A thing numbered ${i}.`,
            },
          }),
        ),
      );
      expect(written.map((r) => r.status).every((s) => s === 200 || s === 201)).toBe(true);
      // Both catalogs' indexers try (and time out) while the similarity replicas are frozen.
      await new Promise((r) => setTimeout(r, 5_000));
    } finally {
      for (const r of replicas) r.similarity.kill('SIGCONT');
    }
    const queued = () => conn.collection('products').countDocuments({ tenant_id: tenant, needs_index: true });
    expect(await waitFor(queued, (n) => n === 0, 60_000)).toBe(0);
    const operations = (await productIndexOperations()) - before;
    console.log(`${count} products written while both similarity replicas were frozen: ${operations} index operations`);
    expect(operations).toBeGreaterThanOrEqual(count);
    expect(operations / count).toBeLessThanOrEqual(1.1);
  }, 120_000);
});
