/**
 * Fail fast: once a watch has noticed that MongoDB or Elasticsearch is gone (killed: refused
 * and cut; or frozen: connections open, nothing answers), /readyz says so within 3 s, requests
 * that need it answer 503 with Retry-After in well under a second instead of waiting out their
 * deadline, and requests that do not need it keep working. When it is back, so is everything.
 *
 * Both backends are reached through TCP proxies in the test process (test/support/tcp-proxy.ts):
 * `down()` is the backend killed, `freeze()` the backend stopped; the shared backends the other
 * test files use are never touched.
 */
import { TcpProxy } from '../support/tcp-proxy';
import { startStack, uniqueId, type HttpResponse, type Stack } from '../support/stack';
import { elasticsearchNode } from '../support/elasticsearch-node';

const mongo = new TcpProxy(new URL(process.env.MONGODB_URI as string));
const elasticsearch = new TcpProxy(new URL(elasticsearchNode()));
const tenant = uniqueId('faults');
let stack: Stack;
let token: string;
let entryId: string;
let productId: string;

/** The run's MongoDB address (its options kept) with the proxy's host and a database of this file. */
function mongoThroughProxy(): string {
  const url = new URL(process.env.MONGODB_URI as string);
  url.host = `127.0.0.1:${mongo.port}`;
  url.pathname = `/${uniqueId('kbtest')}`;
  return url.toString();
}

beforeAll(async () => {
  await mongo.up();
  await elasticsearch.up();
  stack = await startStack({
    env: {
      MONGODB_URI: mongoThroughProxy(),
      ELASTICSEARCH_URL: elasticsearch.url,
      GRPC_DEADLINE_MS: '10000',
    },
  });
  token = await stack.tenantWithToken(tenant);
  const category = await request('/api/knowledge/categories', { method: 'POST', body: { name: 'c' } });
  const entry = await request('/api/knowledge/knowledge-entries', {
    method: 'POST',
    body: {
      title: 'Walrus care',
      content: 'Walruses need cold water.',
      category_id: category.json.id,
      visibility: 'internal',
    },
  });
  expect(entry.status).toBe(201);
  entryId = entry.json.id;
  expect((await request('/api/knowledge/sites', { method: 'POST', body: { slug: 'shop', name: 'Shop' } })).status).toBe(
    201,
  );
  const product = await request('/api/knowledge/products?site_id=shop', {
    method: 'POST',
    body: { external_id: 'p-1', title: 'Oak stool', description: 'A stool of oak', language: 'en' },
  });
  expect(product.status).toBe(201);
  productId = product.json.id;
  // Both indexed (the indexers catch up if writing through was slower than its bound).
  const deadline = Date.now() + 30_000;
  while ((await similar()).status !== 200 || (await entrySearch()).json?.[0]?.entry?.id !== entryId) {
    if (Date.now() > deadline) throw new Error('the entry and the product were not searchable within 30 s');
    await new Promise((r) => setTimeout(r, 250));
  }
}, 90_000);

afterAll(async () => {
  mongo.thaw();
  elasticsearch.thaw();
  await stack?.stop();
  await mongo.down().catch(() => undefined);
  await elasticsearch.down().catch(() => undefined);
});

const request = (path: string, init: Parameters<Stack['request']>[2] = {}) =>
  stack.request(tenant, path, { token, ...init });

async function timed(call: () => Promise<HttpResponse>): Promise<HttpResponse & { ms: number }> {
  const started = Date.now();
  const res = await call();
  return { ...res, ms: Date.now() - started };
}

/** Polls /readyz every 100 ms until `ok`; resolves with the answer and how long it took from `since`. */
async function readyzUntil(ok: (r: HttpResponse) => boolean, since: number, ms = 15_000) {
  for (;;) {
    const res = await stack.request(tenant, '/readyz');
    if (ok(res)) return { res, ms: Date.now() - since };
    if (Date.now() - since > ms) throw new Error(`/readyz did not change within ${ms} ms: ${res.text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const similar = () =>
  request('/api/knowledge/search/similar', { method: 'POST', body: { anchor_product_ids: [productId] } });
const productSearch = () => request('/api/knowledge/search/products', { method: 'POST', body: { query: 'oak' } });
const entrySearch = () => request('/api/knowledge/search/entries', { method: 'POST', body: { query: 'walrus' } });

function expectFastUnavailable(res: HttpResponse & { ms: number }, names: RegExp): void {
  expect([res.status, res.headers['retry-after'], res.json]).toEqual([
    503,
    '5',
    { detail: expect.stringMatching(names) },
  ]);
  expect(res.ms).toBeLessThan(1000);
}

describe.each([
  ['killed', () => elasticsearch.down(), () => elasticsearch.up()],
  ['frozen', async () => elasticsearch.freeze(), async () => elasticsearch.thaw()],
])('Elasticsearch %s', (how, fault, repair) => {
  test(
    `when Elasticsearch is ${how}, then /readyz names it within 3 s (still 200: the gateway can serve), searches answer 503 with ` +
      'Retry-After in under a second, reads that do not need it keep working; then it recovers',
    async () => {
      const since = Date.now();
      await fault();
      try {
        // Both watches report it: the similarity service's and the gateway's read path's, in either order.
        const notReady = await readyzUntil(
          (r) =>
            r.json?.status === 'degraded' &&
            r.json?.checks?.['similarity.elasticsearch'] === 'down' &&
            r.json?.checks?.['gateway.elasticsearch'] === 'down',
          since,
        );
        expect(notReady.res.json.checks['similarity.elasticsearch']).toBe('down');
        expect(notReady.res.json.checks['gateway.elasticsearch']).toBe('down');
        expect(notReady.res.status).toBe(200);
        expect(notReady.ms).toBeLessThan(3000);
        for (const search of [similar, productSearch, entrySearch])
          expectFastUnavailable(await timed(search), /Elasticsearch is unavailable/);
        // Entries, categories and products live in MongoDB: still served.
        const reads = [
          await timed(() => request(`/api/knowledge/knowledge-entries/${entryId}`)),
          await timed(() => request('/api/knowledge/categories')),
          await timed(() => request(`/api/knowledge/products/${productId}`)),
        ];
        expect(reads.map((r) => r.status)).toEqual([200, 200, 200]);
        for (const r of reads) expect(r.ms).toBeLessThan(1000);
        process.stdout.write(`Elasticsearch ${how}: /readyz degraded after ${notReady.ms} ms\n`);
      } finally {
        await repair();
      }
      await readyzUntil((r) => r.json?.status === 'ready', Date.now());
      expect((await similar()).status).toBe(200);
    },
    60_000,
  );
});

describe.each([
  ['killed', () => mongo.down(), () => mongo.up()],
  ['frozen', async () => mongo.freeze(), async () => mongo.thaw()],
])('MongoDB %s', (how, fault, repair) => {
  test(
    `when MongoDB is ${how}, then /readyz names it within 3 s (still 200), and requests answer 503 ` +
      'with Retry-After in under a second; once it is back, reads and writes work again',
    async () => {
      const since = Date.now();
      await fault();
      try {
        const notReady = await readyzUntil((r) => r.json?.status === 'degraded', since);
        expect(notReady.res.status).toBe(200);
        expect(notReady.ms).toBeLessThan(3000);
        // Both services that use MongoDB notice (each has its own watch): wait for the second.
        const both = await readyzUntil(
          (r) => r.json?.checks['knowledge.mongodb'] === 'down' && r.json?.checks['catalog.mongodb'] === 'down',
          since,
        );
        expect(both.ms).toBeLessThan(3000);
        expect(both.res.json.detail).toMatch(/knowledge\.mongodb down/);
        const write = await timed(() =>
          request(`/api/knowledge/knowledge-entries/${entryId}`, { method: 'PUT', body: { content: 'Changed.' } }),
        );
        expectFastUnavailable(write, /MongoDB is unavailable/);
        expectFastUnavailable(await timed(() => request(`/api/knowledge/products/${productId}`)), /unavailable/);
        process.stdout.write(
          `MongoDB ${how}: /readyz degraded after ${notReady.ms} ms, both services after ${both.ms} ms\n`,
        );
      } finally {
        await repair();
      }
      await readyzUntil((r) => r.json?.status === 'ready', Date.now(), 30_000);
      const edit = await request(`/api/knowledge/knowledge-entries/${entryId}`, {
        method: 'PUT',
        body: { content: `Walruses need cold water (${how}).` },
      });
      expect(edit.status).toBe(200);
      expect((await request(`/api/knowledge/knowledge-entries/${entryId}`)).json.content).toBe(
        `Walruses need cold water (${how}).`,
      );
    },
    90_000,
  );
});
