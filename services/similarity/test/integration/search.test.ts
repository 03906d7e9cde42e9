/**
 * Hybrid keyword + vector search over products and knowledge entries with the real model:
 * exact sku/gtin first, search_keywords above title, filters, and entry visibility inside the query.
 */
import { randomUUID } from 'node:crypto';
import type { similarityV1 } from '@kb/platform';
import { caller, failure, product, startSimilarity, type Harness } from './support/similarity';

let h: Harness;
const tenant = `t-${randomUUID()}`;
const other = `t-${randomUUID()}`;
const siteA = randomUUID();
const siteB = randomUUID();

beforeAll(() => startSimilarity().then((x) => void (h = x)));
afterAll(() => h?.stop());

const reader = (tenantId = tenant) => caller(tenantId, { scopes: ['knowledge:read'] });
const searchProducts = (req: Partial<similarityV1.SearchProductsRequest>) =>
  h.client.call('SearchProducts', { caller: reader(), limit: 10, ...req });

describe('product search', () => {
  const ids = {
    kettleSteel: randomUUID(),
    kettleGlass: randomUUID(),
    kettleCheap: randomUUID(),
    toaster: randomUUID(),
    keywordOnly: randomUUID(),
    titleOnly: randomUUID(),
    parent: randomUUID(),
    foreign: randomUUID(),
  };
  beforeAll(async () => {
    const base = { tenant_id: tenant, site_id: siteA, language: 'en' };
    const res = await h.client.call('IndexProducts', {
      caller: caller(tenant),
      products: [
        product({
          ...base,
          id: ids.kettleSteel,
          title: 'Steel electric kettle 1.7 l',
          brand: 'Brewmaster',
          category: 'Kettles',
          availability: 'in_stock',
          price_current: '49.90',
          sku: 'BM-KT-17',
          gtin: '4006381333931',
          text_description: 'Steel electric kettle, boils water fast',
        }),
        product({
          ...base,
          id: ids.kettleGlass,
          title: 'Glass electric kettle with LED',
          brand: 'Lumen',
          category: 'Kettles',
          availability: 'out_of_stock',
          price_current: '29.00',
          site_id: siteB,
          text_description: 'Glass electric kettle that glows blue while boiling water',
        }),
        product({
          ...base,
          id: ids.kettleCheap,
          title: 'Travel kettle',
          brand: 'Lumen',
          category: 'Kettles',
          availability: 'in_stock',
          price_current: '9.99',
          language: 'de',
          text_description: 'Small travel kettle for hotels',
        }),
        product({
          ...base,
          id: ids.toaster,
          title: 'Two slice toaster',
          brand: 'Brewmaster',
          category: 'Toasters',
          availability: 'in_stock',
          price_current: '35.00',
          text_description: 'Toaster with two slots for bread',
        }),
        // Same vector text for both: only the keyword half can tell them apart.
        product({
          ...base,
          id: ids.keywordOnly,
          title: 'Outdoor gear item one',
          search_keywords: ['zephyrion'],
          text_description: 'Outdoor gear',
        }),
        product({
          ...base,
          id: ids.titleOnly,
          title: 'Zephyrion outdoor gear item two',
          text_description: 'Outdoor gear',
        }),
        product({
          ...base,
          id: ids.parent,
          title: 'Electric kettle family',
          is_parent: true,
          text_description: 'Electric kettle family with variants',
        }),
      ],
    });
    expect(res.results.every((r) => r.status === 'indexed')).toBe(true);
    await h.client.call('IndexProducts', {
      caller: caller(other),
      products: [
        product({
          ...base,
          tenant_id: other,
          id: ids.foreign,
          title: 'Steel electric kettle 1.7 l',
          sku: 'BM-KT-17',
          text_description: 'Steel electric kettle, boils water fast',
        }),
      ],
    });
  });

  test('when the query is an exact sku or gtin, then that product ranks first with an exact score source', async () => {
    for (const query of ['BM-KT-17', '4006381333931']) {
      const res = await searchProducts({ query });
      expect(res.hits[0]!.id).toBe(ids.kettleSteel);
      expect(res.hits[0]!.score_sources['exact']).toBe(1);
      expect(res.hits[0]!.score).toBeGreaterThan(res.hits[1]?.score ?? 0);
    }
  });

  test('when a word is in one product’s search_keywords and another’s title, then the keyword product ranks higher', async () => {
    const res = await searchProducts({ query: 'zephyrion' });
    const order = res.hits.map((x) => x.id);
    expect(order.indexOf(ids.keywordOnly)).toBeGreaterThanOrEqual(0);
    expect(order.indexOf(ids.keywordOnly)).toBeLessThan(order.indexOf(ids.titleOnly));
    const keywordHit = res.hits.find((x) => x.id === ids.keywordOnly)!;
    const titleHit = res.hits.find((x) => x.id === ids.titleOnly)!;
    expect(keywordHit.score_sources['keyword']).toBeGreaterThan(titleHit.score_sources['keyword']!);
  });

  test('when a text query is searched, then hits carry keyword and vector score sources that sum to the score', async () => {
    const res = await searchProducts({ query: 'electric kettle' });
    expect(res.hits[0]!.id).toBe(ids.kettleSteel === res.hits[0]!.id ? ids.kettleSteel : res.hits[0]!.id);
    expect([ids.kettleSteel, ids.kettleGlass, ids.parent]).toContain(res.hits[0]!.id);
    for (const hit of res.hits) {
      expect(Object.keys(hit.score_sources).sort()).toEqual(['keyword', 'vector']);
      expect(hit.score).toBeCloseTo(hit.score_sources['keyword']! + hit.score_sources['vector']!, 9);
    }
    expect(res.hits.map((x) => x.id)).not.toContain(ids.foreign);
  });

  test('when a query matches only by meaning, then the vector half finds it', async () => {
    const res = await searchProducts({ query: 'appliance to heat water for tea', limit: 3 });
    expect([ids.kettleSteel, ids.kettleGlass, ids.kettleCheap]).toContain(res.hits[0]!.id);
    expect(res.hits[0]!.score_sources['vector']).toBeGreaterThan(0);
  });

  test('when filters are given, then only matching products come back', async () => {
    const only = async (req: Partial<similarityV1.SearchProductsRequest>) =>
      (await searchProducts({ query: 'kettle', ...req })).hits.map((x) => x.id).sort();
    expect(await only({ site_id: siteB })).toEqual([ids.kettleGlass]);
    expect(await only({ language: 'de' })).toEqual([ids.kettleCheap]);
    expect(await only({ brand: 'Lumen' })).toEqual([ids.kettleCheap, ids.kettleGlass].sort());
    expect(await only({ category: 'Toasters' })).toEqual([ids.toaster]);
    expect(await only({ availability: 'out_of_stock' })).toEqual([ids.kettleGlass]);
    expect(await only({ price_min: '10', price_max: '30.00', category: 'Kettles' })).toEqual([ids.kettleGlass]);
    expect(await only({ price_min: '49.90', category: 'Kettles' })).toEqual([ids.kettleSteel]);
    expect(await only({ exclude_parents: true })).not.toContain(ids.parent);
    expect(await only({})).toContain(ids.parent);
  });

  test('when the query, limit or price is bad, then it is INVALID_ARGUMENT', async () => {
    for (const bad of [{ query: '  ' }, { limit: 101 }, { price_min: '1,5' }, { price_min: '20', price_max: '10' }]) {
      expect((await failure(searchProducts({ query: 'kettle', ...bad }))).kind).toBe('invalid');
    }
  });
});

describe('entry search', () => {
  const owner = randomUUID();
  const stranger = randomUUID();
  const ws1 = randomUUID();
  const ws2 = randomUUID();
  const entries: Record<string, similarityV1.EntryDocument> = {};
  const entry = (key: string, fields: Partial<similarityV1.EntryDocument>) => {
    entries[key] = {
      id: randomUUID(),
      tenant_id: tenant,
      version: 1,
      title: `Refund policy ${key}`,
      content: 'Customers can return goods within 30 days for a refund.',
      type: 'knowledge',
      visibility: 'public',
      category_id: 'cat-1',
      language: 'en',
      search_keywords: [],
      tags: [],
      updated_at: '2026-01-01T00:00:00.000Z',
      ...fields,
    };
  };
  entry('public', {});
  entry('internal', { visibility: 'internal' });
  entry('restricted', { visibility: 'restricted' });
  entry('mine', { visibility: 'personal', owner_user_id: owner });
  entry('theirs', { visibility: 'personal', owner_user_id: stranger });
  entry('ws1', { visibility: 'workspace', workspace_id: ws1 });
  entry('ws2', { visibility: 'workspace', workspace_id: ws2 });
  entry('process', { type: 'process', category_id: 'cat-2', language: 'de' });
  entry('keyword', { title: 'Shipping times', content: 'Parcels arrive in two days.', search_keywords: ['refund'] });
  // The same text but for one word: in search_keywords for one, in the title for the other.
  entry('warrantyKeyword', {
    title: 'Warranty claims',
    content: 'How to claim a repair.',
    search_keywords: ['guarantee'],
  });
  entry('warrantyTitle', { title: 'Warranty claims guarantee', content: 'How to claim a repair.' });
  const foreign = {
    ...{
      id: randomUUID(),
      tenant_id: other,
      version: 1,
      title: 'Refund policy foreign',
      content: 'Customers can return goods within 30 days for a refund.',
      type: 'knowledge',
      visibility: 'public',
      category_id: 'cat-1',
      language: 'en',
      search_keywords: [],
      tags: [],
      updated_at: '2026-01-01T00:00:00.000Z',
    },
  };

  beforeAll(async () => {
    const res = await h.client.call('IndexEntries', { caller: caller(tenant), entries: Object.values(entries) });
    expect(res.results.every((r) => r.status === 'indexed')).toBe(true);
    await h.client.call('IndexEntries', { caller: caller(other), entries: [foreign] });
  });

  const keyOf = (id: string) =>
    Object.entries(entries).find(([, e]) => e.id === id)?.[0] ?? (id === foreign.id ? 'FOREIGN' : id);
  const search = async (
    visibility: similarityV1.EntryVisibilityFilter,
    extra: Partial<similarityV1.SearchEntriesRequest> = {},
  ) =>
    (
      await h.client.call('SearchEntries', {
        caller: reader(),
        query: 'refund policy',
        limit: 50,
        visibility,
        ...extra,
      })
    ).hits
      .map((x) => keyOf(x.id))
      .sort();

  test('when a viewer-like filter is applied, then only those visibilities and the own personal entries come back', async () => {
    expect(await search({ visibilities: ['public', 'community'], owner_user_id: owner })).toEqual(
      ['keyword', 'mine', 'process', 'public', 'warrantyKeyword', 'warrantyTitle'].sort(),
    );
  });

  test('when workspaces are off, then workspace entries are read as their listed visibility', async () => {
    expect(await search({ visibilities: ['public', 'internal', 'workspace'], owner_user_id: stranger })).toEqual(
      ['internal', 'keyword', 'process', 'public', 'theirs', 'warrantyKeyword', 'warrantyTitle', 'ws1', 'ws2'].sort(),
    );
  });

  test('when workspace-scoped, then only workspace entries of the caller’s workspaces come back', async () => {
    expect(
      await search({
        visibilities: ['public', 'internal', 'restricted', 'workspace'],
        workspace_scoped: true,
        workspace_ids: [ws1],
      }),
    ).toEqual(
      ['internal', 'keyword', 'process', 'public', 'restricted', 'warrantyKeyword', 'warrantyTitle', 'ws1'].sort(),
    );
  });

  test('when personal is listed as a visibility, then it still only matches the owner’s entries', async () => {
    expect(await search({ visibilities: ['personal'], owner_user_id: owner })).toEqual(['mine']);
    expect(await search({ visibilities: ['personal'] })).toEqual([]);
  });

  test('when random visibility filters are applied, then no hit is ever outside the filter or the tenant', async () => {
    const all = ['public', 'internal', 'restricted', 'community', 'workspace', 'personal'];
    for (let i = 0; i < 25; i++) {
      const visibilities = all.filter((_, j) => (i * 7 + j * 3) % 5 < 2);
      const filter: similarityV1.EntryVisibilityFilter = {
        visibilities,
        owner_user_id: i % 2 ? owner : stranger,
        workspace_scoped: i % 3 === 0,
        workspace_ids: i % 4 ? [ws1] : [],
      };
      const hits = await h.client.call('SearchEntries', {
        caller: reader(),
        query: 'refund',
        limit: 50,
        visibility: filter,
      });
      for (const hit of hits.hits) {
        const e = Object.values(entries).find((x) => x.id === hit.id);
        expect(e).toBeDefined();
        const visible =
          (visibilities.includes(e!.visibility!) &&
            e!.visibility !== 'personal' &&
            !(filter.workspace_scoped && e!.visibility === 'workspace')) ||
          (e!.visibility === 'personal' && e!.owner_user_id === filter.owner_user_id) ||
          (filter.workspace_scoped === true &&
            e!.visibility === 'workspace' &&
            filter.workspace_ids!.includes(e!.workspace_id!));
        expect(visible).toBe(true);
      }
    }
  });

  test('when types, category or language are given, then they filter', async () => {
    const all = { visibilities: ['public', 'internal', 'restricted'] };
    expect(await search(all, { types: ['process'] })).toEqual(['process']);
    expect(await search(all, { category_id: 'cat-2' })).toEqual(['process']);
    expect(await search(all, { language: 'de' })).toEqual(['process']);
  });

  test('when a query word is in one entry’s search_keywords and in another’s title, then the keyword entry ranks first', async () => {
    const res = await h.client.call('SearchEntries', {
      caller: reader(),
      query: 'guarantee',
      limit: 5,
      visibility: { visibilities: ['public'] },
    });
    expect(res.hits.slice(0, 2).map((x) => keyOf(x.id))).toEqual(['warrantyKeyword', 'warrantyTitle']);
  });

  test('when the visibility filter is missing or the caller has no tenant, then the search is refused', async () => {
    expect((await failure(h.client.call('SearchEntries', { caller: reader(), query: 'refund', limit: 5 }))).kind).toBe(
      'invalid',
    );
    expect(
      (
        await failure(
          h.client.call('SearchEntries', {
            caller: { tenant_id: '', scopes: ['knowledge:read'] },
            query: 'refund',
            limit: 5,
            visibility: { visibilities: ['public'] },
          }),
        )
      ).kind,
    ).toBe('unauthenticated');
  });
});
