/**
 * POST /api/knowledge/products/bulk (extension): up to 1,000 products for one site with
 * per-item results; 1,001 is a 422 with nothing written; bad items do not sink good ones.
 */
import { startStack, uniqueId, type Stack } from '../support/stack';

let stack: Stack;
const acme = uniqueId('acme');
let admin: string;

beforeAll(async () => {
  // 1,000 products take ~3 s on the local MongoDB-compatible server when the machine is quiet:
  // the stack's 5 s deadline would make this a test of the machine's load, not of the bulk.
  stack = await startStack({ env: { GRPC_DEADLINE_MS: '20000' } });
  admin = await stack.tenantWithToken(acme, 'Admin');
  await stack.request(acme, '/api/knowledge/sites', {
    method: 'POST',
    token: admin,
    body: { slug: 'shop', name: 'Shop' },
  });
});
afterAll(async () => {
  await stack?.stop();
});

const bulk = (body: unknown, site = 'shop') =>
  stack.request(acme, `/api/knowledge/products/bulk?site_id=${site}`, { method: 'POST', token: admin, body });
const item = (i: number, extra: Record<string, unknown> = {}) => ({
  title: `Product ${i}`,
  language: 'de',
  external_id: `bulk-${i}`,
  ...extra,
});

describe('products bulk', () => {
  test('when 1,001 products are sent, then 422 and nothing is written', async () => {
    const res = await bulk({ products: Array.from({ length: 1001 }, (_, i) => item(i, { external_id: `over-${i}` })) });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['body', 'products']);
    const probe = await bulk({ products: [item(0, { external_id: 'over-0' })] });
    expect(probe.json.results[0].status).toBe('created');
  });

  test('when an item holds a key with a control character, then 422 at that key and no item is written', async () => {
    const res = await bulk({
      products: [item(0, { external_id: 'ctl-0' }), item(1, { external_id: 'ctl-1', attributes: { 'a\u0001b': 1 } })],
    });
    expect(res.status).toBe(422);
    expect(res.json.detail[0]).toMatchObject({
      loc: ['body', 'products', 1, 'attributes', 'a\u0001b'],
      type: 'key_invalid',
    });
    const probe = await bulk({ products: [item(0, { external_id: 'ctl-0' })] });
    expect(probe.json.results[0].status).toBe('created');
  });

  test('when 1,000 products are sent, then each is created; sent again, each is unchanged; changed, each is updated', async () => {
    const products = Array.from({ length: 1000 }, (_, i) => item(i));
    const res = await bulk({ products });
    expect(res.status).toBe(200);
    expect(res.json.results).toHaveLength(1000);
    expect(res.json.summary).toEqual({ created: 1000, updated: 0, unchanged: 0, error: 0 });
    expect(res.json.results[999]).toMatchObject({ index: 999, status: 'created' });
    expect(['recomputed', 'pending']).toContain(res.json.results[0].embeddings);
    const again = await bulk({ products });
    expect(again.json.summary).toEqual({ created: 0, updated: 0, unchanged: 1000, error: 0 });
    expect(again.json.results.every((r: { embeddings: string }) => r.embeddings === 'skipped')).toBe(true);
    expect(again.json.results[5].id).toBe(res.json.results[5].id);
    const changed = await bulk({ products: products.slice(0, 10).map((p) => ({ ...p, brand: 'New' })) });
    expect(changed.json.summary).toEqual({ created: 0, updated: 10, unchanged: 0, error: 0 });
    const got = await stack.request(acme, `/api/knowledge/products/${res.json.results[3].id}`, { token: admin });
    expect(got.json).toMatchObject({ title: 'Product 3', brand: 'New', external_id: 'bulk-3' });
  }, 120_000);

  test('when good and bad items are mixed, then the good ones are written and each bad one says why', async () => {
    const raw = `{"products":[
      {"title":"Good A","language":"de","external_id":"mix-a","price_current":19.99},
      {"title":"","language":"de","external_id":"mix-bad-title"},
      {"title":"Bad price","language":"de","external_id":"mix-bad-price","price_current":"19.99"},
      "not an object",
      {"title":"Good B","language":"en","external_id":"mix-b","rating_average":0.1},
      {"title":"Bad rating","language":"de","rating_average":5.01}
    ]}`;
    const res = await bulk(raw);
    expect(res.status).toBe(200);
    const r = res.json.results;
    expect(r.map((x: { status: string }) => x.status)).toEqual([
      'created',
      'error',
      'error',
      'error',
      'created',
      'error',
    ]);
    expect(r[1].errors[0]).toMatchObject({ loc: ['body', 'products', 1, 'title'], type: 'string_too_short' });
    expect(r[2].errors[0].loc).toEqual(['body', 'products', 2, 'price_current']);
    expect(r[5].errors[0].loc).toEqual(['body', 'products', 5, 'rating_average']);
    expect(r[1].id).toBeNull();
    const a = await stack.request(acme, `/api/knowledge/products/${r[0].id}`, { token: admin });
    expect(a.json.price_current).toBe('19.99');
    const b = await stack.request(acme, `/api/knowledge/products/${r[4].id}`, { token: admin });
    expect(b.json.rating_average).toBe('0.1');
    expect(res.json.summary).toEqual({ created: 2, updated: 0, unchanged: 0, error: 4 });
  });

  test(
    'when an item has a decimal beyond 34 digits written out, then that item ' +
      'is an error naming the field; a tiny price is answered in plain digits',
    async () => {
      const raw = `{"products":[
      {"title":"Tiny","language":"de","external_id":"dec-tiny","price_current":1e-7},
      {"title":"Too small","language":"de","external_id":"dec-small","price_msrp":1e-400},
      {"title":"Too large","language":"de","external_id":"dec-large","price_special":1e34}
    ]}`;
      const res = await bulk(raw);
      expect(res.status).toBe(200);
      const r = res.json.results;
      expect(r.map((x: { status: string }) => x.status)).toEqual(['created', 'error', 'error']);
      expect(r[1].errors[0]).toMatchObject({ loc: ['body', 'products', 1, 'price_msrp'], type: 'decimal_max_digits' });
      // 1e34 is past the documented magnitude (less than 1e34) before its digits are counted.
      expect(r[2].errors[0]).toMatchObject({
        loc: ['body', 'products', 2, 'price_special'],
        msg: 'Input should be less than 1e+34',
        type: 'less_than',
      });
      const tiny = await stack.request(acme, `/api/knowledge/products/${r[0].id}`, { token: admin });
      expect(tiny.json.price_current).toBe('0.0000001');
    },
  );

  test(
    'when one bulk holds a child before its parent and the same external ' +
      'id twice, then the child gets its parent and the later item wins',
    async () => {
      const res = await bulk({
        products: [
          { title: 'Child', language: 'de', external_id: 'fam-child', parent_external_id: 'fam', is_variant: true },
          { title: 'Twice v1', language: 'de', external_id: 'twice' },
          { title: 'Family', language: 'de', external_id: 'fam', is_parent: true },
          { title: 'Twice v2', language: 'de', external_id: 'twice' },
        ],
      });
      expect(res.json.results.map((r: { status: string }) => r.status)).toEqual([
        'created',
        'created',
        'created',
        'updated',
      ]);
      expect(res.json.results[3].id).toBe(res.json.results[1].id);
      const child = await stack.request(acme, `/api/knowledge/products/${res.json.results[0].id}`, { token: admin });
      expect(child.json.parent_product_id).toBe(res.json.results[2].id);
      const twice = await stack.request(acme, `/api/knowledge/products/${res.json.results[1].id}`, { token: admin });
      expect(twice.json.title).toBe('Twice v2');
    },
  );

  test(
    'when two bulks create the same new external ids at once, then each ' +
      'key is one product and both answers name it with what was written',
    async () => {
      for (let round = 0; round < 4; round++) {
        const keys = Array.from({ length: 25 }, (_, i) => `race-${round}-${i}`);
        const [a, b] = await Promise.all(
          ['A', 'B'].map((side) =>
            bulk({ products: keys.map((external_id) => ({ title: `Racer ${side}`, language: 'de', external_id })) }),
          ),
        );
        expect([a!.status, b!.status]).toEqual([200, 200]);
        for (const [i, key] of keys.entries()) {
          const [ra, rb] = [a!.json.results[i], b!.json.results[i]];
          // One product per key, whichever write came first; the other updated it.
          expect(ra.id).toBe(rb.id);
          expect([ra.status, rb.status].sort()).toEqual(['created', 'updated']);
          const got = await stack.request(acme, `/api/knowledge/products/${ra.id}`, { token: admin });
          expect(got.json).toMatchObject({ external_id: key });
          expect(['Racer A', 'Racer B']).toContain(got.json.title);
        }
      }
    },
    120_000,
  );

  test('when one bulk holds a parent and its children, then the answer comes after they are indexed with their parent link', async () => {
    const res = await bulk({
      products: [
        {
          title: 'Hiking boot size 41',
          description: 'Waterproof leather hiking boot, size 41',
          language: 'en',
          external_id: 'boot-41',
          parent_external_id: 'boot',
          is_variant: true,
        },
        {
          title: 'Hiking boot',
          description: 'Waterproof leather hiking boot',
          language: 'en',
          external_id: 'boot',
          is_parent: true,
        },
        {
          title: 'Hiking boot size 43',
          description: 'Waterproof leather hiking boot, size 43',
          language: 'en',
          external_id: 'boot-43',
          parent_external_id: 'boot',
          is_variant: true,
        },
        {
          title: 'Trekking shoe',
          description: 'Waterproof trekking shoe for hiking',
          language: 'en',
          external_id: 'trek',
        },
      ],
    });
    expect(res.json.results.map((r: { embeddings: string }) => r.embeddings)).toEqual([
      'recomputed',
      'recomputed',
      'recomputed',
      'recomputed',
    ]);
    const family = new Set(res.json.results.slice(0, 3).map((r: { id: string }) => r.id));
    // Straight after the answer (no wait for the background indexer): one family, one hit.
    const similar = await stack.request(acme, '/api/knowledge/search/similar', {
      method: 'POST',
      token: admin,
      body: { anchor_product_ids: [res.json.results[3].id], limit: 50, collapse_variants: true },
    });
    expect(similar.status).toBe(200);
    expect(similar.json.products.filter((p: { id: string }) => family.has(p.id))).toHaveLength(1);
  });

  test('when the site is unknown, then 404; an empty list or a missing site_id is 422', async () => {
    expect((await bulk({ products: [item(1)] }, 'nope')).status).toBe(404);
    expect((await bulk({ products: [] })).status).toBe(422);
    expect(
      (
        await stack.request(acme, '/api/knowledge/products/bulk', {
          method: 'POST',
          token: admin,
          body: { products: [item(1)] },
        })
      ).status,
    ).toBe(422);
  });
});
