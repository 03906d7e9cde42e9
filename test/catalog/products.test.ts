/**
 * Products through the gateway: upsert by external id, every field, default and bound of the
 * interface at the edge, exact decimals, variants in both arrival orders, concurrency, tenant
 * isolation, delete. (Indexing is covered by test/search/catalog-search.test.ts.)
 */
import { startStack, uniqueId, type Stack } from '../support/stack';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DECIMAL = /^(?!^[-+.]*$)[+-]?0*\d*\.?\d*$/;

let stack: Stack;
const acme = uniqueId('acme');
const globex = uniqueId('globex');
let admin: string;
let viewer: string;
let globexAdmin: string;
let siteId: string;

beforeAll(async () => {
  stack = await startStack();
  admin = await stack.tenantWithToken(acme, 'Admin');
  viewer = await stack.token(acme, 'Viewer');
  globexAdmin = await stack.tenantWithToken(globex, 'Admin');
  siteId = (
    await stack.request(acme, '/api/knowledge/sites', {
      method: 'POST',
      token: admin,
      body: { slug: 'shop', name: 'Shop' },
    })
  ).json.id;
  await stack.request(acme, '/api/knowledge/sites', {
    method: 'POST',
    token: admin,
    body: { slug: 'outlet', name: 'Outlet' },
  });
  await stack.request(globex, '/api/knowledge/sites', {
    method: 'POST',
    token: globexAdmin,
    body: { slug: 'shop', name: 'G' },
  });
});
afterAll(async () => {
  await stack?.stop();
});

const upsert = (body: unknown, site = 'shop', token = admin, tenant = acme) =>
  stack.request(tenant, `/api/knowledge/products?site_id=${encodeURIComponent(site)}`, { method: 'POST', token, body });
const get = (id: string, token = admin, tenant = acme) =>
  stack.request(tenant, `/api/knowledge/products/${id}`, { token });
const base = { title: 'Trail shoe', language: 'de' };

describe('products', () => {
  test('when a product is created with the required fields only, then 201 with every field of the interface and its defaults', async () => {
    const res = await upsert(base);
    expect(res.status).toBe(201);
    const p = res.json;
    expect(Object.keys(p).sort()).toEqual(
      [
        'id',
        'tenant_id',
        'site_id',
        'external_id',
        'title',
        'description',
        'short_description',
        'sku',
        'gtin',
        'brand',
        'category',
        'attributes',
        'properties',
        'price_current',
        'price_msrp',
        'price_special',
        'price_on_request',
        'currency',
        'image_url',
        'product_url',
        'additional_images',
        'availability',
        'rating_average',
        'rating_count',
        'language',
        'translation_group_id',
        'parent_product_id',
        'is_variant',
        'is_parent',
        'source',
        'sync_hash',
        'last_synced_at',
        'created_at',
        'updated_at',
        'search_keywords',
        'has_similarity_anchor',
      ].sort(),
    );
    expect(p).toMatchObject({
      tenant_id: acme,
      site_id: siteId,
      external_id: null,
      title: 'Trail shoe',
      description: null,
      short_description: null,
      sku: null,
      gtin: null,
      brand: null,
      category: null,
      attributes: {},
      properties: {},
      price_current: null,
      price_msrp: null,
      price_special: null,
      price_on_request: false,
      currency: 'EUR',
      image_url: null,
      product_url: null,
      additional_images: [],
      availability: null,
      rating_average: null,
      rating_count: 0,
      language: 'de',
      translation_group_id: null,
      parent_product_id: null,
      is_variant: false,
      is_parent: false,
      sync_hash: null,
      search_keywords: [],
      has_similarity_anchor: false,
    });
    expect(p.id).toMatch(UUID);
    expect(p.created_at).toMatch(UTC);
    expect(p.last_synced_at).toMatch(UTC);
    expect(typeof p.source).toBe('string');
    expect(res.headers.location).toBe(`/api/knowledge/products/${p.id}`);
    const got = await get(p.id, viewer);
    expect(got.status).toBe(200);
    expect(got.json).toEqual(p);
  });

  test('when site_id is a slug or a uuid, then both work; an unknown site is 404 "Site not found"', async () => {
    expect((await upsert(base, siteId)).json.site_id).toBe(siteId);
    expect((await upsert(base, 'outlet')).status).toBe(201);
    const unknown = await upsert(base, 'nope');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ detail: 'Site not found' });
    expect((await upsert(base, '7c6a2f4e-5b0d-4a53-9a37-0d2a4b9f1c11')).status).toBe(404);
    const missing = await stack.request(acme, '/api/knowledge/products', { method: 'POST', token: admin, body: base });
    expect(missing.status).toBe(422);
    expect(missing.json.detail[0].loc).toEqual(['query', 'site_id']);
  });

  test('when site_id is repeated or empty, then 422 naming it on the single and the bulk route', async () => {
    for (const path of ['/api/knowledge/products', '/api/knowledge/products/bulk']) {
      const body = path.endsWith('bulk') ? { products: [base] } : base;
      for (const query of ['site_id=shop&site_id=outlet', 'site_id=']) {
        const res = await stack.request(acme, `${path}?${query}`, { method: 'POST', token: admin, body });
        expect([path, query, res.status]).toEqual([path, query, 422]);
        expect(res.json.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([['query', 'site_id']]);
      }
    }
  });

  test('when every field is sent, then every field comes back; prices and rating exactly as sent, as decimal strings', async () => {
    const body = {
      ...base,
      external_id: 'full-1',
      description: 'Long',
      short_description: 'Short',
      sku: 'SKU-1',
      gtin: '4006381333931',
      brand: 'Acme',
      category: 'Shoes',
      attributes: { color: 'red', size: { eu: 42 } },
      properties: { material: 'mesh' },
      price_on_request: true,
      currency: 'CHF',
      image_url: 'https://x/img.png',
      product_url: 'https://x/p',
      additional_images: ['https://x/2.png'],
      availability: 'in_stock',
      rating_count: 12,
      is_variant: false,
      is_parent: true,
      similarity_text: 'running',
      search_keywords: ['runner'],
      embedding_text_description: 'e1',
      embedding_text_properties: 'e2',
      embedding_text_attributes: 'e3',
      sync_hash: 'h1',
    };
    const raw = JSON.stringify(body).replace(
      /}$/,
      ',"price_current":19.99,"price_msrp":0.1,"price_special":1234567890.123456789012,"rating_average":4.50}',
    );
    const res = await upsert(raw);
    expect(res.status).toBe(201);
    const p = res.json;
    const {
      similarity_text: _s,
      embedding_text_description: _d,
      embedding_text_properties: _p,
      embedding_text_attributes: _a,
      ...shown
    } = body;
    expect(p).toMatchObject({
      ...shown,
      has_similarity_anchor: true,
      price_current: '19.99',
      price_msrp: '0.1',
      price_special: '1234567890.123456789012',
      rating_average: '4.50',
    });
    for (const f of ['price_current', 'price_msrp', 'price_special', 'rating_average']) expect(p[f]).toMatch(DECIMAL);
    expect(p).not.toHaveProperty('similarity_text');
    expect(p).not.toHaveProperty('embedding_text_description');
    expect(p).not.toHaveProperty('parent_external_id');
  });

  test('when numbers use exponents or trailing zeros, then the decimal string keeps their exact value', async () => {
    const res = await upsert(
      '{"title":"E","language":"de","price_current":1.5e-3,"price_msrp":2E2,"price_special":10.000,"rating_average":5}',
    );
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      price_current: '0.0015',
      price_msrp: '200',
      price_special: '10.000',
      rating_average: '5',
    });
  });

  test(
    'when a decimal is small enough that Decimal128 would print it with ' +
      'an exponent, then it is answered in plain digits and indexed',
    async () => {
      const res = await upsert(
        '{"title":"Tiny","language":"de","price_current":0.0000001,"price_msrp":1.5e-9,"price_special":0E-10,"rating_average":1e-7}',
      );
      expect(res.status).toBe(201);
      const plain = {
        price_current: '0.0000001',
        price_msrp: '0.0000000015',
        price_special: '0.0000000000',
        rating_average: '0.0000001',
      };
      expect(res.json).toMatchObject(plain);
      expect((await get(res.json.id)).json).toMatchObject(plain);
      // The price reaches Elasticsearch as a number it can index (not "1E-7", which it refused).
      expect(res.headers['x-embeddings']).toBe('recomputed');
      const found = await stack.request(acme, '/api/knowledge/search/products', {
        method: 'POST',
        token: admin,
        body: { query: 'Tiny', price_max: 0.000001 },
      });
      expect(
        found.json.products.map((p: { id: string; price_current: string }) => [p.id, p.price_current]),
      ).toContainEqual([res.json.id, '0.0000001']);
    },
  );

  test('when a decimal needs more than 34 digits written out, then 422 naming the field and nothing is stored', async () => {
    // 34 digits written out, each within the documented magnitudes (0, or 1e-18 up to 1e34).
    const ok = {
      price_current: `0.${'0'.repeat(17)}${'1'.repeat(17)}`,
      price_msrp: `1${'0'.repeat(33)}`,
      price_special: `${'9'.repeat(20)}.${'9'.repeat(14)}`,
      rating_average: `0.${'0'.repeat(17)}${'1'.repeat(17)}`,
    };
    const accepted = await upsert(
      `{"title":"Wide","language":"de",${Object.entries(ok)
        .map(([k, v]) => `"${k}":${v}`)
        .join(',')}}`,
    );
    expect([accepted.status, accepted.json.detail]).toEqual([201, undefined]);
    expect(accepted.json).toMatchObject(ok);
    for (const field of ['price_current', 'price_msrp', 'price_special', 'rating_average']) {
      for (const value of ['1e-400', '1E-35', `0.${'0'.repeat(34)}1`, '1e34', `${'9'.repeat(20)}.${'9'.repeat(15)}`]) {
        // above 5: refused by the range already
        if (field === 'rating_average' && !value.includes('-') && !value.startsWith('0.')) continue;
        const res = await upsert(`{"title":"Wide","language":"de","external_id":"wide-bad","${field}":${value}}`);
        expect([field, value, res.status]).toEqual([field, value, 422]);
        expect(res.json.detail.map((d: { loc: unknown[] }) => d.loc)).toContainEqual(['body', field]);
      }
    }
    // Nothing was written: the external id creates a new product now.
    expect((await upsert({ ...base, external_id: 'wide-bad' })).status).toBe(201);
  });

  test(
    'when an external id is upserted again, then the product is replaced: same ' +
      'id and created_at, omitted fields back to defaults, version moves on',
    async () => {
      const first = (
        await upsert({ ...base, external_id: 'up-1', brand: 'Acme', price_current: 10, search_keywords: ['a'] })
      ).json;
      await new Promise((r) => setTimeout(r, 5));
      const second = await upsert({ ...base, external_id: 'up-1', title: 'Renamed' });
      expect(second.status).toBe(200);
      expect(second.json).toMatchObject({
        id: first.id,
        created_at: first.created_at,
        title: 'Renamed',
        brand: null,
        price_current: null,
        search_keywords: [],
      });
      expect(second.json.updated_at > first.updated_at).toBe(true);
      expect(second.json.last_synced_at > first.last_synced_at).toBe(true);
      // Another site: another product with the same external id.
      const other = await upsert({ ...base, external_id: 'up-1' }, 'outlet');
      expect(other.status).toBe(201);
      expect(other.json.id).not.toBe(first.id);
    },
  );

  test(
    'when the same product is sent again unchanged, then it ' +
      'answers 200 with last_synced_at moved and re-embedding skipped',
    async () => {
      const first = (await upsert({ ...base, external_id: 'same-1', sync_hash: 'abc' })).json;
      const again = await upsert({ ...base, external_id: 'same-1', sync_hash: 'abc' });
      expect(again.status).toBe(200);
      expect(again.headers['x-embeddings']).toBe('skipped');
      expect(again.json.updated_at).toBe(first.updated_at);
      expect(again.json.last_synced_at >= first.last_synced_at).toBe(true);
    },
  );

  test('when many upserts of one external id run at once, then exactly one product exists', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => upsert({ ...base, external_id: 'race-1', title: `T${i}` })),
    );
    expect(results.map((r) => r.status).every((s) => s === 200 || s === 201)).toBe(true);
    expect(results.filter((r) => r.status === 201).length).toBe(1);
    expect(new Set(results.map((r) => r.json.id)).size).toBe(1);
  });

  test('when a variant arrives before its parent, or after it, then parent_product_id points at the parent in the same site', async () => {
    const early = (
      await upsert({ ...base, external_id: 'child-early', parent_external_id: 'parent-1', is_variant: true })
    ).json;
    expect(early.parent_product_id).toBeNull();
    const parent = (await upsert({ ...base, external_id: 'parent-1', is_parent: true })).json;
    expect((await get(early.id)).json.parent_product_id).toBe(parent.id);
    const late = (
      await upsert({ ...base, external_id: 'child-late', parent_external_id: 'parent-1', is_variant: true })
    ).json;
    expect(late.parent_product_id).toBe(parent.id);
    expect(late.is_variant).toBe(true);
    // A parent of the same external id in another site is not this child's parent.
    const elsewhere = (await upsert({ ...base, external_id: 'child-x', parent_external_id: 'parent-1' }, 'outlet'))
      .json;
    expect(elsewhere.parent_product_id).toBeNull();
  });

  test.each([
    ['external_id', 'e'.repeat(200), 'e'.repeat(201)],
    ['sku', 's'.repeat(100), 's'.repeat(101)],
    ['gtin', '1'.repeat(50), '1'.repeat(51)],
    ['brand', 'b'.repeat(200), 'b'.repeat(201)],
    ['availability', 'a'.repeat(50), 'a'.repeat(51)],
    ['currency', 'USD', 'USDX'],
    ['sync_hash', 'h'.repeat(64), 'h'.repeat(65)],
    ['language', 'de', 'd'],
    ['language', 'de-CH', 'de-CHX'],
    ['rating_average', 0, -0.01],
    ['rating_average', 5, 5.01],
    ['rating_count', 0, -1],
    ['title', 't', ''],
  ])('when %s is at its bound, then it is accepted; one past it is a 422 naming the field', async (field, ok, bad) => {
    const good = await upsert({ ...base, [field]: ok });
    expect([good.status, good.json?.detail]).toEqual([201, undefined]);
    const res = await upsert({ ...base, [field]: bad });
    expect(res.status).toBe(422);
    expect(res.json.detail.map((d: { loc: unknown[] }) => d.loc)).toContainEqual(['body', field]);
  });

  test('when a parent arrives after its variants, then the answer comes after the variants are indexed under it', async () => {
    const a = await upsert({
      title: 'Rain poncho small',
      description: 'Light rain poncho, size S',
      language: 'en',
      external_id: 'poncho-s',
      parent_external_id: 'poncho',
      is_variant: true,
    });
    const b = await upsert({
      title: 'Rain poncho large',
      description: 'Light rain poncho, size L',
      language: 'en',
      external_id: 'poncho-l',
      parent_external_id: 'poncho',
      is_variant: true,
    });
    const parent = await upsert({
      title: 'Rain poncho',
      description: 'Light rain poncho',
      language: 'en',
      external_id: 'poncho',
      is_parent: true,
    });
    const anchor = await upsert({
      title: 'Rain cape',
      description: 'Light rain cape for cycling',
      language: 'en',
      external_id: 'cape',
    });
    const family = new Set([a.json.id, b.json.id, parent.json.id]);
    // Straight after the answers (no wait for the background indexer): one family, one hit.
    const similar = await stack.request(acme, '/api/knowledge/search/similar', {
      method: 'POST',
      token: admin,
      body: { anchor_product_ids: [anchor.json.id], limit: 50, collapse_variants: true },
    });
    expect(similar.status).toBe(200);
    const hits = similar.json.products.filter((p: { id: string }) => family.has(p.id));
    expect(hits).toHaveLength(1);
  });

  test('when prices or rating come as strings, or fields have wrong types, then 422 and nothing is written', async () => {
    for (const body of [
      { ...base, external_id: 'bad-1', price_current: '19.99' },
      { ...base, external_id: 'bad-1', rating_average: '4.5' },
      { ...base, external_id: 'bad-1', rating_count: 1.5 },
      { ...base, external_id: 'bad-1', attributes: [] },
      { ...base, external_id: 'bad-1', additional_images: 'x' },
      { ...base, external_id: 'bad-1', unknown_field: true },
      { language: 'de', external_id: 'bad-1' },
    ]) {
      const res = await upsert(body);
      expect([res.status, body]).toEqual([422, body]);
    }
    // Nothing was written: the external id creates a new product now.
    expect((await upsert({ ...base, external_id: 'bad-1' })).status).toBe(201);
  });

  test('when the caller lacks knowledge:write, then 403; reading needs knowledge:read only', async () => {
    const created = (await upsert(base)).json;
    expect((await upsert(base, 'shop', viewer)).status).toBe(403);
    expect((await get(created.id, viewer)).status).toBe(200);
    expect(
      (await stack.request(acme, `/api/knowledge/products/${created.id}`, { method: 'DELETE', token: viewer })).status,
    ).toBe(403);
  });

  test("when another tenant's product or site is used, then 404 as if it did not exist", async () => {
    const mine = (await upsert(base)).json;
    const res = await get(mine.id, globexAdmin, globex);
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ detail: 'Product not found' });
    expect((await upsert(base, siteId, globexAdmin, globex)).json).toEqual({ detail: 'Site not found' });
    expect(
      (await stack.request(globex, `/api/knowledge/products/${mine.id}`, { method: 'DELETE', token: globexAdmin }))
        .status,
    ).toBe(404);
    expect((await get(mine.id)).status).toBe(200);
  });

  test('when a product is deleted, then it is gone (404) and its external id can be created anew', async () => {
    const p = (await upsert({ ...base, external_id: 'del-1' })).json;
    expect(
      (await stack.request(acme, `/api/knowledge/products/${p.id}`, { method: 'DELETE', token: admin })).status,
    ).toBe(204);
    expect((await get(p.id)).status).toBe(404);
    expect(
      (await stack.request(acme, `/api/knowledge/products/${p.id}`, { method: 'DELETE', token: admin })).status,
    ).toBe(404);
    const again = await upsert({ ...base, external_id: 'del-1' });
    expect(again.status).toBe(201);
    expect(again.json.id).not.toBe(p.id);
  });
});
