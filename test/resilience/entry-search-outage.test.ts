/**
 * No lost index writes: while the similarity service (and so Elasticsearch) is unreachable,
 * entry writes still succeed; when it is back, the background indexer catches up, deletes
 * included. The services are wired here by hand so the similarity service can come back on
 * the same address.
 */
import mongoose from 'mongoose';
import pino from 'pino';
import { loadKnowledgeConfig, startKnowledgeServer, type KnowledgeServer } from '@kb/knowledge';
import { runAdmin } from '@kb/admin';
import { loadSimilarityConfig, startSimilarityServer, type SimilarityServer } from '@kb/similarity';
import { connectBackends, loadGatewayConfig, startGateway, type GatewayServer } from '@kb/gateway';
import { databaseUri, httpRequest, tenantWithAdminToken, uniqueId } from '../support/stack';

const ENTRIES = '/api/knowledge/knowledge-entries';
const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const db = uniqueId('kbtest');
const tenant = uniqueId('outage');
const host = `${tenant}.localhost`;

let similarity: SimilarityServer | undefined;
let similarityPort: number;
let knowledge: KnowledgeServer;
let gateway: GatewayServer;
let backends: ReturnType<typeof connectBackends>;
let conn: mongoose.Connection;
let token: string;
let category: string;

const mongoUri = () => databaseUri(db);

const startSimilarity = (port: number) =>
  startSimilarityServer(
    loadSimilarityConfig({
      ...process.env,
      GRPC_HOST: '127.0.0.1',
      SIMILARITY_GRPC_PORT: String(port),
      ELASTICSEARCH_INDEX_PREFIX: db,
    }),
    logger,
  );

beforeAll(async () => {
  similarity = await startSimilarity(0);
  similarityPort = similarity.port;
  const env = {
    ...process.env,
    GRPC_HOST: '127.0.0.1',
    MONGODB_URI: mongoUri(),
    SIMILARITY_GRPC_ADDR: `127.0.0.1:${similarityPort}`,
  };
  knowledge = await startKnowledgeServer(
    loadKnowledgeConfig({ ...env, KNOWLEDGE_GRPC_PORT: '0', INDEXER_INTERVAL_MS: '200', INDEX_ON_WRITE_MS: '2000' }),
    logger,
  );
  const config = loadGatewayConfig({
    ...env,
    PORT: '0',
    HOST: '127.0.0.1',
    TENANT_MODE: 'host',
    GRPC_DEADLINE_MS: '5000',
    KNOWLEDGE_GRPC_ADDR: `127.0.0.1:${knowledge.port}`,
    CATALOG_GRPC_ADDR: '127.0.0.1:1',
    SIMILARITY_GRPC_ADDR: `127.0.0.1:${similarityPort}`,
  });
  backends = connectBackends(config);
  gateway = await startGateway(config, backends, logger);
  conn = await mongoose.createConnection(mongoUri()).asPromise();
  token = await tenantWithAdminToken(conn, tenant);
  const deadline = Date.now() + 20_000;
  let res = await httpRequest(gateway.port, host, '/api/knowledge/categories', {
    method: 'POST',
    token,
    body: { name: 'c' },
  });
  while (res.status !== 201 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    res = await httpRequest(gateway.port, host, '/api/knowledge/categories', {
      method: 'POST',
      token,
      body: { name: 'c' },
    });
  }
  category = res.json.id;
});
afterAll(async () => {
  await gateway?.stop();
  backends?.close();
  await knowledge?.stop();
  await similarity?.stop();
  await conn?.close();
});

const request = (path: string, init: Parameters<typeof httpRequest>[3] = {}) =>
  httpRequest(gateway.port, host, path, { token, ...init });

async function waitFor<T>(probe: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await probe();
  while (!ok(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    value = await probe();
  }
  return value;
}

describe('similarity outage', () => {
  test('when the index is unreachable, then writes succeed; when it is back, every write reaches the index', async () => {
    const before = await request(ENTRIES, {
      method: 'POST',
      body: { title: 'Gone soon', content: 'Tapir enclosure cleaning.', category_id: category, visibility: 'internal' },
    });
    expect(before.json.embedding_model).toBe('all-MiniLM-L6-v2-q');

    await similarity!.stop();
    similarity = undefined;

    const created = await request(ENTRIES, {
      method: 'POST',
      body: {
        title: 'Okapi feeding',
        content: 'Okapis eat leaves and buds.',
        category_id: category,
        visibility: 'internal',
      },
    });
    expect(created.status).toBe(201);
    expect(created.json.embedding_model).toBeNull();
    const edited = await request(`${ENTRIES}/${created.json.id}`, {
      method: 'PUT',
      body: { content: 'Okapis eat leaves, buds and fruit.' },
    });
    expect(edited.status).toBe(200);
    expect((await request(`${ENTRIES}/${before.json.id}`, { method: 'DELETE' })).status).toBe(204);
    const down = await request('/api/knowledge/search/entries', { method: 'POST', body: { query: 'okapi' } });
    expect(down.status).toBe(503);
    expect(down.headers['retry-after']).toBeDefined();

    similarity = await startSimilarity(similarityPort);

    const got = await waitFor(
      () => request(`${ENTRIES}/${created.json.id}`),
      (r) => r.json.embedding_model === 'all-MiniLM-L6-v2-q',
    );
    expect(got.json.embedding_model).toBe('all-MiniLM-L6-v2-q');
    expect(got.json.version).toBe(2);
    const hits = await waitFor(
      () => request('/api/knowledge/search/entries', { method: 'POST', body: { query: 'okapi fruit', limit: 50 } }),
      (r) => r.status === 200 && r.json.some((h: { entry: { id: string } }) => h.entry.id === created.json.id),
    );
    expect(hits.json[0].entry.id).toBe(created.json.id);
    // The delete made while the index was away reached it too: no tombstone is left.
    const tombstones = await waitFor(
      () => conn.collection('knowledge_entry_tombstones').countDocuments({}),
      (n) => n === 0,
    );
    expect(tombstones).toBe(0);
    expect(hits.json.map((h: { entry: { id: string } }) => h.entry.id)).not.toContain(before.json.id);
  });

  test('when `reindex entries` runs, then every entry is written into a new index behind the alias and search keeps working', async () => {
    const lines: string[] = [];
    await runAdmin(['reindex', 'entries', '--similarity', `127.0.0.1:${similarityPort}`], {
      connection: conn,
      out: (l) => lines.push(l),
    });
    const count = await conn.collection('knowledge_entries').countDocuments({});
    expect(lines.at(-1)).toMatch(new RegExp(`^Reindexed ${count} entries \\(0 failed\\); alias \\S+ -> \\S+`));
    const res = await request('/api/knowledge/search/entries', { method: 'POST', body: { query: 'okapi fruit' } });
    expect(res.status).toBe(200);
    expect(res.json[0].entry.title).toBe('Okapi feeding');
  });

  test('when reindex is given a bad kind or address, then a usage error', async () => {
    // `reindex products` is a command of its own now (the one CLI does both kinds): a kind it does not know is the bad one.
    await expect(runAdmin(['reindex', 'orders'], { connection: conn, out: () => undefined })).rejects.toThrow(
      /entries/,
    );
    await expect(
      runAdmin(['reindex', 'entries', '--similarity', 'nope'], { connection: conn, out: () => undefined }),
    ).rejects.toThrow(/host:port/);
  });
});
