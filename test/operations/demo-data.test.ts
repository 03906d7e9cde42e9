/**
 * The demo data `npm start` puts into the `demo` tenant, seeded here by the same function into a
 * fresh tenant of a real stack: what it holds (every writable type, long articles, English and
 * German with translations, a nested category tree, personal notes, a site, 200+ products with
 * variants), that a plain question is answered from the middle of a long article, that similar
 * products of a demo product come from its family first, and that a second run creates nothing.
 */
import {
  DEMO_ANSWER_SNIPPET,
  DEMO_ENTRIES,
  DEMO_EXAMPLE_PRODUCT,
  DEMO_NOTES,
  DEMO_QUESTION,
  demoProducts,
  seedDemoData,
  type SeedResult,
} from '@kb/devstack';
import { startStack, uniqueId, type Stack } from '../support/stack';

const API = '/api/knowledge';
const USER = '5b7e2c1d-3a4f-4b6c-8d9e-0f1a2b3c4d5e';
const OTHER_USER = '7c8d9e0f-1a2b-4c3d-9e4f-5a6b7c8d9e0f';

let stack: Stack;
const tenant = uniqueId('demo');
let admin: string;
let first: SeedResult;

interface Entry {
  id: string;
  type: string;
  visibility: string;
  language: string;
  source_reference: string | null;
  translation_group_id: string;
  content: string;
  metadata: Record<string, unknown>;
}

/** Every entry the token sees, all pages. */
async function entries(token: string): Promise<Entry[]> {
  const out: Entry[] = [];
  let path: string | undefined = `${API}/knowledge-entries?limit=500&include_expired=true`;
  while (path) {
    const res = await stack.request(tenant, path, { token });
    expect(res.status).toBe(200);
    out.push(...(res.json as Entry[]));
    const next = /<([^>]+)>;\s*rel="next"/.exec(String(res.headers.link ?? ''))?.[1];
    path = next ? `${new URL(next, 'http://x').pathname}${new URL(next, 'http://x').search}` : undefined;
  }
  return out;
}
const count = <T>(items: T[], key: (t: T) => string) =>
  items.reduce<Record<string, number>>((acc, t) => ({ ...acc, [key(t)]: (acc[key(t)] ?? 0) + 1 }), {});

beforeAll(async () => {
  stack = await startStack({ env: { INDEXER_INTERVAL_MS: '200' } });
  admin = await stack.tenantWithToken(tenant, 'Admin', ['--user', USER]);
  const log = (msg: string) => process.stdout.write(`${msg}\n`);
  first = await seedDemoData({ gatewayUrl: stack.baseUrl, token: admin, tenant, waitForIndexMs: 400_000, log });
  process.stdout.write(
    `demo data, first seeding: ${(first.ms / 1000).toFixed(1)} s ${JSON.stringify(first.created)} indexed=${first.indexed}\n`,
  );
}, 600_000);
afterAll(async () => {
  await stack?.stop();
});

describe('when the demo data is seeded into a fresh tenant', () => {
  test('then it holds every writable type (40+ entries), English and German with translations, tags, a nested category tree', async () => {
    expect(first.indexed).toBe(true);
    const all = await entries(admin);
    const demo = all.filter((e) => e.source_reference?.startsWith('demo:') && e.visibility !== 'personal');
    expect(demo.length).toBe(DEMO_ENTRIES.length);
    expect(demo.length).toBeGreaterThanOrEqual(40);
    const types = count(demo, (e) => e.type);
    for (const type of ['knowledge', 'skill', 'process', 'glossary', 'memory', 'bootstrap'])
      expect(types[type]).toBeGreaterThan(0);
    // The service keeps the skill index itself, one per tenant, listing every skill.
    const index = all.filter((e) => e.type === 'skill_index');
    expect(index).toHaveLength(1);
    expect((index[0]!.metadata.skills as unknown[]).length).toBe(types.skill);
    expect(
      demo.filter((e) => e.type === 'skill').every((e) => typeof e.metadata.trigger_description === 'string'),
    ).toBe(true);
    expect(demo.filter((e) => e.type === 'process').every((e) => (e.metadata.steps as unknown[]).length > 0)).toBe(
      true,
    );

    const languages = count(demo, (e) => e.language);
    expect(languages.en).toBeGreaterThan(20);
    expect(languages.de).toBeGreaterThan(10);
    const long = demo.filter((e) => e.content.length >= 3000);
    expect(long.length).toBeGreaterThanOrEqual(4);
    expect(long.some((e) => e.language === 'de')).toBe(true);

    // A German article is a translation of the English one: same group, and the group says so.
    const returnsEn = demo.find((e) => e.source_reference === 'demo:returns-policy/en')!;
    const returnsDe = demo.find((e) => e.source_reference === 'demo:returns-policy/de')!;
    expect(returnsDe.translation_group_id).toBe(returnsEn.translation_group_id);
    const group = await stack.request(tenant, `${API}/knowledge-entries/${returnsEn.id}/translations`, {
      token: admin,
    });
    expect(group.status).toBe(200);
    expect(
      (group.json as { entry: { language: string }; is_source: boolean }[])
        .map((t) => [t.entry.language, t.is_source])
        .sort(),
    ).toEqual([
      ['de', false],
      ['en', true],
    ]);

    const categories = (await stack.request(tenant, `${API}/categories`, { token: admin })).json as {
      id: string;
      parent_id: string | null;
    }[];
    expect(categories.length).toBeGreaterThanOrEqual(4);
    const tops = categories.filter((c) => c.parent_id === null);
    const children = categories.filter((c) => c.parent_id !== null);
    expect(tops.length).toBeGreaterThanOrEqual(2);
    expect(children.length).toBeGreaterThanOrEqual(2);
    expect(children.every((c) => categories.some((p) => p.id === c.parent_id))).toBe(true);
  });

  test("then the personal notes are the seeding user's only, and a Viewer sees fewer entries (public and community ones)", async () => {
    const notes = (await entries(admin)).filter((e) => e.visibility === 'personal');
    expect(notes.map((n) => n.source_reference).sort()).toEqual(DEMO_NOTES.map((n) => `demo:${n.key}`).sort());
    const otherAdmin = await stack.token(tenant, 'Admin', ['--user', OTHER_USER]);
    expect((await entries(otherAdmin)).filter((e) => e.visibility === 'personal')).toEqual([]);
    // The same user with a new token (as every npm start makes one) still has them.
    const again = await stack.token(tenant, 'Agent', ['--user', USER]);
    expect((await entries(again)).filter((e) => e.visibility === 'personal')).toHaveLength(DEMO_NOTES.length);

    const viewer = await stack.token(tenant, 'Viewer');
    const seen = await entries(viewer);
    const all = (await entries(otherAdmin)).filter((e) => e.source_reference?.startsWith('demo:'));
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.length).toBeLessThan(all.length);
    expect(new Set(seen.map((e) => e.visibility))).toEqual(new Set(['public', 'community']));
    expect(all.some((e) => e.visibility === 'restricted')).toBe(true);
  });

  test('then the site holds 200+ products in English and German, parents with variants, prices and availability', async () => {
    const sites = (await stack.request(tenant, `${API}/sites`, { token: admin })).json as { slug: string }[];
    expect(sites.map((s) => s.slug)).toEqual(['outdoor-shop']);
    const catalogue = demoProducts();
    expect(catalogue.length).toBeGreaterThanOrEqual(200);
    expect(first.created.products).toBe(catalogue.length);
    // Every product written; a bulk call retried after a timeout finds its first try's products "unchanged".
    expect(first.productStatuses.error).toBeUndefined();
    expect((first.productStatuses.created ?? 0) + (first.productStatuses.unchanged ?? 0)).toBe(catalogue.length);

    const variant = await stack.request(tenant, `${API}/products/${first.exampleProduct.id}`, { token: admin });
    expect(variant.status).toBe(200);
    expect(variant.json).toMatchObject({
      external_id: DEMO_EXAMPLE_PRODUCT.external_id,
      is_variant: true,
      language: 'en',
      brand: 'Nordkamm',
      price_current: '449',
      availability: expect.any(String),
    });
    const parent = await stack.request(tenant, `${API}/products/${variant.json.parent_product_id}`, { token: admin });
    expect(parent.json).toMatchObject({ external_id: 'aurora-2-en', is_parent: true });

    for (const [language, query, brand] of [
      ['de', 'Daunenschlafsack für den Winter', 'Alpenflug'],
      ['en', 'waterproof hiking boots', 'Nordkamm'],
    ]) {
      const res = await stack.request(tenant, `${API}/search/products`, {
        method: 'POST',
        token: admin,
        body: { query, language, site_id: 'outdoor-shop', limit: 5 },
      });
      expect(res.status).toBe(200);
      const hits = res.json.products as { language: string; brand: string }[];
      expect(hits.length).toBeGreaterThan(0);
      expect(hits.every((h) => h.language === language)).toBe(true);
      expect(hits[0]!.brand).toBe(brand);
    }
  });

  test('then the plain question of the banner is answered by the returns article, with a passage from its middle', async () => {
    const res = await stack.request(tenant, `${API}/search/entries`, {
      method: 'POST',
      token: admin,
      body: { query: DEMO_QUESTION, limit: 3 },
    });
    expect(res.status).toBe(200);
    const [top] = res.json as {
      entry: { source_reference: string; content: string };
      relevance: number;
      passages: { text: string; start: number; end: number }[];
    }[];
    expect(top!.entry.source_reference).toBe('demo:returns-policy/en');
    expect(top!.relevance).toBeGreaterThanOrEqual(0.5);
    const answer = top!.passages.find((p) => p.text.includes(DEMO_ANSWER_SNIPPET));
    expect(answer).toBeDefined();
    expect(answer!.start).toBeGreaterThan(500);
    expect(answer!.end).toBeLessThan(top!.entry.content.length - 500);
  });

  test("then a German question is answered by the German article, and a site filter keeps to the shop's answers", async () => {
    const res = await stack.request(tenant, `${API}/search/entries`, {
      method: 'POST',
      token: admin,
      body: { query: 'Wie lange dauert der Versand in die Schweiz?', language: 'de', limit: 3, include_content: false },
    });
    expect(res.status).toBe(200);
    expect(res.json[0].entry.source_reference).toBe('demo:shipping/de');
    const site = await stack.request(tenant, `${API}/search/entries`, {
      method: 'POST',
      token: admin,
      body: { query: 'staff discount', site_id: 'outdoor-shop', include_content: false },
    });
    expect(site.status).toBe(200);
    const references = (site.json as { entry: { source_reference: string } }[]).map((h) => h.entry.source_reference);
    expect(references.length).toBeGreaterThan(0);
    expect(references).not.toContain('demo:staff-discount/en');
  });

  test("then the README tour's look-ups find what it says: the returns article, the tent by its SKU", async () => {
    const returns = await stack.request(tenant, `${API}/search/entries`, {
      method: 'POST',
      token: admin,
      body: { query: 'return policy', language: 'en' },
    });
    expect(returns.json[0].entry.source_reference).toBe('demo:returns-policy/en');
    const tent = await stack.request(tenant, `${API}/search/products`, {
      method: 'POST',
      token: admin,
      body: { query: DEMO_EXAMPLE_PRODUCT.sku, language: 'en' },
    });
    expect(tent.json.products[0].id).toBe(first.exampleProduct.id);
  });

  test('then similar products of a demo tent are its own family first, then other tents', async () => {
    const res = await stack.request(tenant, `${API}/search/similar`, {
      method: 'POST',
      token: admin,
      body: { anchor_product_ids: [first.exampleProduct.id], language: 'en', limit: 8 },
    });
    expect(res.status).toBe(200);
    const hits = res.json.products as { external_id: string; category: string }[];
    const family = (id: string) => id.startsWith('aurora-2-');
    // The family in English: the parent and two more colours.
    expect(hits.slice(0, 3).map((h) => family(h.external_id))).toEqual([true, true, true]);
    expect(hits.slice(3).some((h) => family(h.external_id))).toBe(false);
    expect(hits[3]!.category).toBe('Tents');
  });

  test('then a second run creates nothing, leaves what is there, and is quick', async () => {
    const before = (await entries(admin)).length;
    const second = await seedDemoData({ gatewayUrl: stack.baseUrl, token: admin, tenant });
    process.stdout.write(
      `demo data, second seeding: ${(second.ms / 1000).toFixed(1)} s ${JSON.stringify(second.existing)}\n`,
    );
    expect(second.created).toEqual({ categories: 0, entries: 0, notes: 0, sites: 0, products: 0 });
    expect(second.existing).toMatchObject({
      entries: DEMO_ENTRIES.length,
      notes: DEMO_NOTES.length,
      sites: 1,
    });
    // The products of this data version were written once; they are not sent again.
    expect(second.productStatuses).toEqual({});
    expect(second.exampleProduct.id).toBe(first.exampleProduct.id);
    expect((await entries(admin)).length).toBe(before);
    expect(second.ms).toBeLessThan(10_000);
  });
});
