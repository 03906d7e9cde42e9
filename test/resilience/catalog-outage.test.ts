/**
 * No data loss while Elasticsearch is away: product writes still succeed and are answered;
 * when Elasticsearch is back, the catalog's background indexer brings every product into the
 * index with its latest version and applies the deletes made meanwhile.
 *
 * Elasticsearch is taken away for this test file only: this stack reaches it through a TCP
 * proxy in the test process, and the outage closes the proxy (new connections are refused,
 * open ones are cut) — to the services that is exactly Elasticsearch going down, while the
 * shared Elasticsearch the other test files use in parallel is never touched.
 */
import mongoose from 'mongoose';
import { startStack, uniqueId, type Stack } from '../support/stack';
import { TcpProxy } from '../support/tcp-proxy';
import { elasticsearchNode } from '../support/elasticsearch-node';

const ES = new URL(elasticsearchNode());
const outage = new TcpProxy(ES);
let stack: Stack;
let db: mongoose.Connection;
let prefix: string;
const acme = uniqueId('acme');
let admin: string;

beforeAll(async () => {
  await outage.up();
  stack = await startStack({
    env: { ELASTICSEARCH_URL: `http://127.0.0.1:${outage.port}`, INDEXER_INTERVAL_MS: '250', INDEX_ON_WRITE_MS: '600' },
  });
  prefix = new URL(stack.mongoUri).pathname.slice(1);
  db = await mongoose.createConnection(stack.mongoUri).asPromise();
  admin = await stack.tenantWithToken(acme, 'Admin');
  await stack.request(acme, '/api/knowledge/sites', {
    method: 'POST',
    token: admin,
    body: { slug: 'shop', name: 'Shop' },
  });
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await db?.close();
  await outage.down().catch(() => undefined);
});

/** What the index holds, read from the real Elasticsearch (not through the proxy). */
async function indexed(): Promise<Map<string, { version: number; title: string }>> {
  await fetch(`${ES.origin}/${prefix}-products-*/_refresh`, { method: 'POST' });
  const res = await fetch(`${ES.origin}/${prefix}-products-*/_search`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ size: 1000, version: true, query: { match_all: {} }, _source: ['title'] }),
  });
  const body = (await res.json()) as {
    hits: { hits: { _id: string; _version: number; _source: { title: string } }[] };
  };
  return new Map(body.hits.hits.map((h) => [h._id, { version: h._version, title: h._source.title }]));
}

const product = (i: number, title: string) => ({
  external_id: `p-${i}`,
  title,
  description: `Product number ${i}: ${title}`,
  language: 'en',
});
const upsert = (body: unknown) =>
  stack.request(acme, '/api/knowledge/products?site_id=shop', { method: 'POST', token: admin, body });

test(
  'when Elasticsearch goes down mid-run, then writes are still answered, ' +
    'and once it is back every product is indexed with its latest version',
  async () => {
    const first = await stack.request(acme, '/api/knowledge/products/bulk?site_id=shop', {
      method: 'POST',
      token: admin,
      body: { products: Array.from({ length: 20 }, (_, i) => product(i, `v1 item ${i}`)) },
    });
    expect(first.json.summary.created).toBe(20);
    const idOf = (i: number) => first.json.results[i].id as string;
    for (let t = Date.now(); (await indexed()).size < 20;) {
      if (Date.now() - t > 20_000) throw new Error('the first products were not indexed');
      await new Promise((r) => setTimeout(r, 200));
    }

    await outage.down();
    const started = Date.now();
    // Updates (some twice), new products and deletes, all while Elasticsearch is away.
    for (let i = 0; i < 10; i++) {
      const res = await upsert(product(i, `v2 item ${i}`));
      expect([res.status, res.headers['x-embeddings']]).toEqual([200, 'pending']);
    }
    for (let i = 0; i < 3; i++) expect((await upsert(product(i, `v3 item ${i}`))).status).toBe(200);
    const created = await stack.request(acme, '/api/knowledge/products/bulk?site_id=shop', {
      method: 'POST',
      token: admin,
      body: { products: Array.from({ length: 5 }, (_, k) => product(100 + k, `new item ${k}`)) },
    });
    expect(created.json.summary.created).toBe(5);
    expect(created.json.results.every((r: { embeddings: string }) => r.embeddings === 'pending')).toBe(true);
    for (const i of [18, 19])
      expect(
        (await stack.request(acme, `/api/knowledge/products/${idOf(i)}`, { method: 'DELETE', token: admin })).status,
      ).toBe(204);
    expect(Date.now() - started).toBeLessThan(40_000); // every write answered within its bound, none hung
    // Reads that need the index say so (503), writes did not.
    const searching = await stack.request(acme, '/api/knowledge/search/similar', {
      method: 'POST',
      token: admin,
      body: { anchor_product_ids: [idOf(0)] },
    });
    expect(searching.status).toBe(503);

    process.stdout.write(`writes during the outage: ${Date.now() - started} ms\n`);
    await outage.up();
    const back = Date.now();
    const latest = async () =>
      new Map(
        (await db.collection('products').find({}).toArray()).map((d) => [
          d._id as unknown as string,
          { version: d.version as number, title: d.title as string, needs: d.needs_index as boolean },
        ]),
      );
    const deadline = Date.now() + 45_000;
    let lastDiff = '';
    for (;;) {
      const [want, have] = [await latest(), await indexed()];
      const wrong = [...want].filter(
        ([id, w]) => have.get(id)?.version !== w.version || have.get(id)?.title !== w.title || w.needs,
      );
      const stray = [...have.keys()].filter((id) => !want.has(id));
      const tombstones = await db.collection('product_deletions').countDocuments({});
      if (wrong.length === 0 && stray.length === 0 && tombstones === 0) {
        process.stdout.write(`caught up ${Date.now() - back} ms after Elasticsearch came back\n`);
        expect(want.size).toBe(23);
        expect(have.get(idOf(0))).toEqual({ version: want.get(idOf(0))?.version, title: 'v3 item 0' });
        expect(have.get(idOf(5))?.title).toBe('v2 item 5');
        expect(have.has(idOf(18))).toBe(false);
        break;
      }
      lastDiff = JSON.stringify({ wrong: wrong.slice(0, 3), stray, tombstones });
      if (Date.now() > deadline) throw new Error(`the index did not catch up within 45 s: ${lastDiff}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const after = await stack.request(acme, '/api/knowledge/search/similar', {
      method: 'POST',
      token: admin,
      body: { anchor_product_ids: [idOf(0)], limit: 50 },
    });
    expect(after.status).toBe(200);
    expect(after.json.products.map((p: { id: string }) => p.id)).not.toContain(idOf(18));
  },
  120_000,
);
