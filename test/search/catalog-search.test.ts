/**
 * Indexing on write, similar search and product search through the gateway, against the real
 * similarity service, Elasticsearch and embedding model.
 */
import { startStack, uniqueId, type Stack } from '../support/stack';

let stack: Stack;
const acme = uniqueId('acme');
const globex = uniqueId('globex');
const strict = uniqueId('strict'); // variant_strategy children_only
let admin: string;
let globexAdmin: string;
let strictAdmin: string;
const ids = new Map<string, string>();

const CATALOGUE = [
  {
    external_id: 'shoe-trail',
    title: 'Trail running shoe',
    description: 'Lightweight trail running shoe with grippy outsole for muddy forest paths',
    brand: 'Stride',
    category: 'Shoes',
    price_current: 89.9,
    attributes: { sport: 'running', terrain: 'trail' },
  },
  {
    external_id: 'shoe-road',
    title: 'Road running shoe',
    description: 'Cushioned running shoe for asphalt and marathon training',
    brand: 'Stride',
    category: 'Shoes',
    price_current: 119.0,
    attributes: { sport: 'running', terrain: 'road' },
  },
  {
    external_id: 'shoe-race',
    title: 'Racing flat running shoe',
    description: 'Very light running shoe for fast races and tempo runs',
    brand: 'Pace',
    category: 'Shoes',
    price_current: 149.5,
    attributes: { sport: 'running' },
  },
  {
    external_id: 'jacket-rain',
    title: 'Waterproof rain jacket',
    description: 'Breathable waterproof shell jacket for hiking in rain and wind',
    brand: 'Peak',
    category: 'Jackets',
    price_current: 199,
    search_keywords: ['regenjacke', 'shell'],
    attributes: { waterproof: true },
  },
  {
    external_id: 'jacket-down',
    title: 'Down winter jacket',
    description: 'Warm insulated down jacket for cold winter days',
    brand: 'Peak',
    category: 'Jackets',
    price_current: 249,
  },
  {
    external_id: 'coffee-espresso',
    title: 'Espresso machine',
    description: 'Espresso machine with 15 bar pump and milk frother for cappuccino',
    brand: 'Barista',
    category: 'Kitchen',
    price_current: 399,
    sku: 'ESP-1500',
  },
  {
    external_id: 'coffee-grinder',
    title: 'Coffee grinder',
    description: 'Burr coffee grinder for espresso and filter coffee beans',
    brand: 'Barista',
    category: 'Kitchen',
    price_current: 129,
  },
  {
    external_id: 'kettle',
    title: 'Electric kettle',
    description: 'Stainless steel electric water kettle, 1.7 litres, boils water fast',
    brand: 'Barista',
    category: 'Kitchen',
    price_current: 39.99,
  },
  {
    external_id: 'shoe-de',
    title: 'Laufschuh für Trails',
    description: 'Leichter Laufschuh für Waldwege und Trailrunning',
    brand: 'Stride',
    category: 'Shoes',
    price_current: 79,
    language: 'de',
  },
  {
    external_id: 'family',
    title: 'Running shoe family',
    description: 'Running shoe model family',
    brand: 'Stride',
    category: 'Shoes',
    is_parent: true,
  },
  {
    external_id: 'family-40',
    title: 'Running shoe size 40',
    description: 'Cushioned running shoe for road running, size 40',
    brand: 'Stride',
    category: 'Shoes',
    is_variant: true,
    parent_external_id: 'family',
  },
  {
    external_id: 'family-42',
    title: 'Running shoe size 42',
    description: 'Cushioned running shoe for road running, size 42',
    brand: 'Stride',
    category: 'Shoes',
    is_variant: true,
    parent_external_id: 'family',
  },
];

const similar = (body: unknown, tenant = acme, token = admin) =>
  stack.request(tenant, '/api/knowledge/search/similar', { method: 'POST', token, body });
const search = (body: unknown, tenant = acme, token = admin) =>
  stack.request(tenant, '/api/knowledge/search/products', { method: 'POST', token, body });
const id = (ext: string) => ids.get(ext) as string;
const titles = (res: { json: { products: { title: string }[] } }) => res.json.products.map((p) => p.title);

beforeAll(async () => {
  stack = await startStack();
  admin = await stack.tenantWithToken(acme, 'Admin');
  globexAdmin = await stack.tenantWithToken(globex, 'Admin');
  await stack.admin('tenant', 'create', strict);
  await stack.admin('tenant', 'settings', '--tenant', strict, '--set', 'variant_strategy=children_only');
  strictAdmin = await stack.token(strict, 'Admin');
  for (const [tenant, token] of [
    [acme, admin],
    [strict, strictAdmin],
  ] as const) {
    await stack.request(tenant, '/api/knowledge/sites', {
      method: 'POST',
      token,
      body: { slug: 'shop', name: 'Shop' },
    });
    await stack.request(tenant, '/api/knowledge/sites', {
      method: 'POST',
      token,
      body: { slug: 'outlet', name: 'Outlet' },
    });
    const res = await stack.request(tenant, '/api/knowledge/products/bulk?site_id=shop', {
      method: 'POST',
      token,
      body: { products: CATALOGUE.map((p) => ({ language: 'en', ...p })) },
    });
    expect(res.json.summary.created).toBe(CATALOGUE.length);
    if (tenant === acme) CATALOGUE.forEach((p, i) => ids.set(p.external_id, res.json.results[i].id));
    expect(res.json.results.every((r: { embeddings: string }) => r.embeddings === 'recomputed')).toBe(true);
  }
  // The outlet has one running shoe.
  const outlet = await stack.request(acme, '/api/knowledge/products?site_id=outlet', {
    method: 'POST',
    token: admin,
    body: {
      title: 'Outlet running shoe',
      description: 'Discounted running shoe for road and trail',
      language: 'en',
      external_id: 'outlet-shoe',
    },
  });
  ids.set('outlet-shoe', outlet.json.id);
  await stack.request(globex, '/api/knowledge/sites', {
    method: 'POST',
    token: globexAdmin,
    body: { slug: 'shop', name: 'G' },
  });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

describe('indexing on write', () => {
  test(
    'when a product is written, then it is indexed before the answer ' +
      '(embeddings recomputed); an unchanged sync_hash skips re-embedding',
    async () => {
      const first = await stack.request(acme, '/api/knowledge/products?site_id=shop', {
        method: 'POST',
        token: admin,
        body: {
          title: 'Hiking boot',
          description: 'Leather hiking boot',
          language: 'en',
          external_id: 'boot',
          sync_hash: 'v1',
        },
      });
      expect(first.headers['x-embeddings']).toBe('recomputed');
      const same = await stack.request(acme, '/api/knowledge/products?site_id=shop', {
        method: 'POST',
        token: admin,
        body: {
          title: 'Hiking boot',
          description: 'Leather hiking boot',
          language: 'en',
          external_id: 'boot',
          sync_hash: 'v1',
          brand: 'New',
        },
      });
      expect(same.status).toBe(200);
      expect(same.headers['x-embeddings']).toBe('skipped');
      const changed = await stack.request(acme, '/api/knowledge/products?site_id=shop', {
        method: 'POST',
        token: admin,
        body: {
          title: 'Hiking boot',
          description: 'Leather hiking boot',
          language: 'en',
          external_id: 'boot',
          sync_hash: 'v2',
        },
      });
      expect(changed.headers['x-embeddings']).toBe('recomputed');
    },
  );
});

describe('similar search', () => {
  test('when a running shoe is the anchor, then the other running shoes come first, in the product search hit shape', async () => {
    const res = await similar({ anchor_product_ids: [id('shoe-trail')], language: 'en' });
    expect(res.status).toBe(200);
    expect(res.json.anchor_product_ids).toEqual([id('shoe-trail')]);
    expect(res.json.vector_field).toBe('description');
    expect(res.json.products.length).toBeLessThanOrEqual(8);
    const top3 = res.json.products.slice(0, 3).map((p: { title: string }) => p.title);
    expect([top3, top3.every((t: string) => /shoe|boot/i.test(t))]).toEqual([top3, true]);
    const hit = res.json.products[0];
    expect(Object.keys(hit).sort()).toEqual(
      [
        'id',
        'external_id',
        'title',
        'description',
        'short_description',
        'sku',
        'gtin',
        'brand',
        'category',
        'price_current',
        'price_msrp',
        'price_special',
        'price_on_request',
        'currency',
        'image_url',
        'product_url',
        'availability',
        'rating_average',
        'rating_count',
        'language',
        'score',
        'score_sources',
      ].sort(),
    );
    expect(typeof hit.score).toBe('number');
    expect(Object.keys(hit.score_sources)).toEqual(['description']);
    expect(res.json.products.some((p: { id: string }) => p.id === id('shoe-trail'))).toBe(false);
    const prices = res.json.products.map((p: { price_current: string | null }) => p.price_current).filter(Boolean);
    expect(prices.every((p: string) => /^\d+(\.\d+)?$/.test(p))).toBe(true);
  });

  test('when the vector field is hybrid, then score_sources has each field and score is their sum', async () => {
    const res = await similar({ anchor_product_ids: [id('coffee-espresso')], vector_field: 'hybrid', limit: 3 });
    expect(res.status).toBe(200);
    expect(res.json.vector_field).toBe('hybrid');
    expect(res.json.products).toHaveLength(3);
    for (const p of res.json.products) {
      const sum = Object.values(p.score_sources as Record<string, number>).reduce((a, b) => a + b, 0);
      expect(p.score).toBeCloseTo(sum, 6);
    }
    expect(res.json.products[0].category).toBe('Kitchen');
  });

  test('when filters are given, then site, language, exclusions and limit hold', async () => {
    const outlet = await similar({ anchor_product_ids: [id('shoe-trail')], site_id: 'outlet' });
    expect(outlet.json.products.map((p: { id: string }) => p.id)).toEqual([id('outlet-shoe')]);
    const de = await similar({ anchor_product_ids: [id('shoe-trail')], language: 'de' });
    expect(de.json.products.map((p: { language: string }) => p.language)).toEqual(['de']);
    const excluded = await similar({
      anchor_product_ids: [id('shoe-trail')],
      exclude_product_ids: [id('shoe-road'), id('shoe-race')],
      limit: 50,
    });
    const got = excluded.json.products.map((p: { id: string }) => p.id);
    expect(got).not.toContain(id('shoe-road'));
    expect(got).not.toContain(id('shoe-race'));
    expect((await similar({ anchor_product_ids: [id('shoe-trail')], limit: 2 })).json.products).toHaveLength(2);
  });

  test("when anchors are unknown or another tenant's, then they are ignored; none left is a 404", async () => {
    const unknown = '7c6a2f4e-5b0d-4a53-9a37-0d2a4b9f1c11';
    const mixed = await similar({ anchor_product_ids: [unknown, id('kettle')], limit: 3 });
    expect(mixed.status).toBe(200);
    expect(mixed.json.anchor_product_ids).toEqual([id('kettle')]);
    const none = await similar({ anchor_product_ids: [unknown, 'not-even-a-uuid'] });
    expect(none.status).toBe(404);
    const other = await similar({ anchor_product_ids: [id('kettle')] }, globex, globexAdmin);
    expect(other.status).toBe(404);
    expect((await similar({ anchor_product_ids: [id('kettle')], site_id: 'nope' })).json).toEqual({
      detail: 'Site not found',
    });
  });

  test('when the body breaks a bound, then 422', async () => {
    for (const body of [
      { anchor_product_ids: [] },
      { anchor_product_ids: Array.from({ length: 11 }, () => id('kettle')) },
      { anchor_product_ids: [id('kettle')], limit: 0 },
      { anchor_product_ids: [id('kettle')], limit: 51 },
      { anchor_product_ids: [id('kettle')], vector_field: 'title' },
      { anchor_product_ids: [id('kettle')], anchor_weights: [1, 2] },
      { anchor_product_ids: [id('kettle')], unknown: 1 },
      {},
    ]) {
      const res = await similar(body);
      expect([res.status, body]).toEqual([422, body]);
    }
    expect((await similar({ anchor_product_ids: [id('kettle')], limit: 50 })).status).toBe(200);
    expect(
      (await similar({ anchor_product_ids: Array.from({ length: 10 }, () => id('kettle')), limit: 1 })).status,
    ).toBe(200);
  });

  test('when the tenant strategy is children_only, then parents are left out; collapse_variants keeps one hit per family', async () => {
    const strictRes = await stack.request(strict, '/api/knowledge/products/bulk?site_id=shop', {
      method: 'POST',
      token: strictAdmin,
      body: {
        products: [
          {
            title: 'Running shoe family',
            description: 'Running shoe model family',
            language: 'en',
            external_id: 'family',
            is_parent: true,
          },
        ],
      },
    });
    const parentId = strictRes.json.results[0].id;
    const anchor = (
      await stack.request(strict, '/api/knowledge/products/bulk?site_id=shop', {
        method: 'POST',
        token: strictAdmin,
        body: { products: [{ ...CATALOGUE[1], language: 'en' }] },
      })
    ).json.results[0].id;
    const res = await similar({ anchor_product_ids: [anchor], limit: 50 }, strict, strictAdmin);
    expect(res.status).toBe(200);
    expect(res.json.products.map((p: { id: string }) => p.id)).not.toContain(parentId);
    expect(res.json.products.length).toBeGreaterThan(3);

    const all = await similar({ anchor_product_ids: [id('shoe-road')], limit: 50 });
    expect(all.json.products.map((p: { id: string }) => p.id)).toContain(id('family'));
    const collapsed = await similar({ anchor_product_ids: [id('shoe-road')], limit: 50, collapse_variants: true });
    const family = collapsed.json.products.filter((p: { id: string }) =>
      [id('family-40'), id('family-42'), id('family')].includes(p.id),
    );
    expect(family).toHaveLength(1);
  });

  test('when explain is asked, then each hit says why it ranked and the response counts what each filter removed', async () => {
    const res = await similar({
      anchor_product_ids: [id('shoe-trail')],
      explain: true,
      language: 'en',
      exclude_product_ids: [id('shoe-road')],
      limit: 3,
    });
    expect(res.status).toBe(200);
    expect(res.json.products[0].explanation).toBeDefined();
    expect(res.json.explain.filtered_out).toMatchObject({ excluded: 1 });
    expect(res.json.explain.filtered_out.language).toBeGreaterThanOrEqual(1);
    expect(res.json.explain.anchors_ignored).toBe(0);
  });

  test('when anchor_weights and min_score are given, then the heavier anchor pulls the ranking and low scores are cut', async () => {
    const towardsCoffee = await similar({
      anchor_product_ids: [id('shoe-trail'), id('coffee-espresso')],
      anchor_weights: [0.05, 1],
      limit: 1,
    });
    expect(towardsCoffee.json.products[0].category).toBe('Kitchen');
    const towardsShoes = await similar({
      anchor_product_ids: [id('shoe-trail'), id('coffee-espresso')],
      anchor_weights: [1, 0.05],
      limit: 1,
    });
    expect(towardsShoes.json.products[0].title).toMatch(/shoe|boot/i);
    const cut = await similar({ anchor_product_ids: [id('shoe-trail')], min_score: 0.99, limit: 50 });
    expect(cut.status).toBe(200);
    expect(cut.json.products.every((p: { score: number }) => p.score >= 0.99)).toBe(true);
  });

  test('when min_score is outside the cosine scale [-1, 1] or not a number, then it is a 422 naming body.min_score', async () => {
    for (const min_score of [1.01, -1.5, 1e300, '0.5', true]) {
      const res = await similar({ anchor_product_ids: [id('shoe-trail')], min_score });
      expect(res.status).toBe(422);
      expect(res.json.detail[0].loc).toEqual(['body', 'min_score']);
      expect(typeof res.json.detail[0].msg).toBe('string');
    }
    for (const min_score of [-1, 1, null]) {
      expect((await similar({ anchor_product_ids: [id('shoe-trail')], min_score })).status).toBe(200);
    }
  });

  test('when a product is deleted, then it no longer comes back from similar search', async () => {
    const before = await similar({ anchor_product_ids: [id('jacket-rain')], limit: 50 });
    expect(before.json.products.map((p: { id: string }) => p.id)).toContain(id('jacket-down'));
    expect(
      (await stack.request(acme, `/api/knowledge/products/${id('jacket-down')}`, { method: 'DELETE', token: admin }))
        .status,
    ).toBe(204);
    const after = await similar({ anchor_product_ids: [id('jacket-rain')], limit: 50 });
    expect(after.json.products.map((p: { id: string }) => p.id)).not.toContain(id('jacket-down'));
  });
});

describe('tenant search settings', () => {
  test(
    'when the tenant default is hybrid with only the description ' +
      'weighted, then the default search is hybrid over that field alone',
    async () => {
      const tenant = uniqueId('weighted');
      await stack.admin('tenant', 'create', tenant);
      await stack.admin(
        'tenant',
        'settings',
        '--tenant',
        tenant,
        '--set',
        'default_vector_field=hybrid',
        '--set',
        'hybrid_weights.properties=0',
        '--set',
        'hybrid_weights.attributes=0',
      );
      const token = await stack.token(tenant, 'Admin');
      await stack.request(tenant, '/api/knowledge/sites', {
        method: 'POST',
        token,
        body: { slug: 'shop', name: 'Shop' },
      });
      const res = await stack.request(tenant, '/api/knowledge/products/bulk?site_id=shop', {
        method: 'POST',
        token,
        body: { products: CATALOGUE.slice(0, 6).map((p) => ({ language: 'en', ...p })) },
      });
      const anchor = res.json.results[0].id;
      const sim = await similar({ anchor_product_ids: [anchor], limit: 3 }, tenant, token);
      expect(sim.status).toBe(200);
      expect(sim.json.vector_field).toBe('hybrid');
      for (const p of sim.json.products) expect(Object.keys(p.score_sources)).toEqual(['description']);
      const one = await similar({ anchor_product_ids: [anchor], limit: 3, vector_field: 'attributes' }, tenant, token);
      expect(one.json.vector_field).toBe('attributes');
      expect(Object.keys(one.json.products[0].score_sources)).toEqual(['attributes']);
    },
  );
});

describe('product search (extension)', () => {
  test('when a text is searched, then matching products come first with keyword and vector score sources', async () => {
    const res = await search({ query: 'espresso machine' });
    expect(res.status).toBe(200);
    expect(res.json.products[0].title).toBe('Espresso machine');
    expect(Object.keys(res.json.products[0].score_sources).sort()).toEqual(
      expect.arrayContaining(['keyword', 'vector']),
    );
  });

  test('when a search keyword or an exact sku is searched, then that product is first', async () => {
    expect(titles(await search({ query: 'regenjacke' }))[0]).toBe('Waterproof rain jacket');
    expect(titles(await search({ query: 'ESP-1500' }))[0]).toBe('Espresso machine');
  });

  test('when filters are given, then only matching products come back', async () => {
    const barista = await search({ query: 'coffee', brand: 'Barista', price_min: 100, price_max: 200 });
    expect(titles(barista)).toEqual(['Coffee grinder']);
    const cheap = await search({ query: 'kettle', price_max: 39.99 });
    expect(titles(cheap)).toContain('Electric kettle');
    const tooCheap = await search({ query: 'kettle', price_max: 39.98 });
    expect(titles(tooCheap)).not.toContain('Electric kettle');
    const de = await search({ query: 'Laufschuh', language: 'de', site_id: 'shop' });
    expect(de.json.products.every((p: { language: string }) => p.language === 'de')).toBe(true);
    expect((await search({ query: 'x', site_id: 'nope' })).status).toBe(404);
    expect((await search({ query: '' })).status).toBe(422);
    expect((await search({ query: 'x', price_min: '10' })).status).toBe(422);
  });
});

describe('reindex (admin CLI)', () => {
  test(
    'when `reindex products` runs, then every product of every tenant ' +
      'is in the new index behind the alias and search answers as before',
    async () => {
      const before = titles(await search({ query: 'espresso machine', limit: 3 }));
      const res = await stack.catalogAdmin('reindex', 'products');
      // Only its progress (a bar on a terminal, a line every 2 s otherwise) on stderr: nothing refused or retried.
      const problems = res.stderr.replace(/^reindex(?: \|.*|: \d+\/\d+ products)$/gm, '').trim();
      expect([res.code, problems]).toEqual([0, '']);
      expect(res.stdout.at(-1)).toMatch(/^Reindexed \d+ products into \S+ \(alias \S+\)/);
      const total = Number(/Reindexed (\d+)/.exec(res.stdout.at(-1) as string)?.[1]);
      expect(total).toBeGreaterThanOrEqual(2 * CATALOGUE.length);
      expect(titles(await search({ query: 'espresso machine', limit: 3 }))).toEqual(before);
      const sim = await similar({ anchor_product_ids: [id('shoe-trail')], limit: 3 });
      expect(sim.status).toBe(200);
      expect(sim.json.products).toHaveLength(3);
    },
    60_000,
  );
});
