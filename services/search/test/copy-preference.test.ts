import type { Client } from '@elastic/elasticsearch';
import { copyPreference } from '../src/copy-preference';
import { hybridMatches, PRODUCT_SEARCH, productFilter } from '../src/search-queries';

describe('copy preference (one request reads the same shard copies every time)', () => {
  test('when the same request is asked twice, then its preference is the same; another request gets another', () => {
    const vector = new Float32Array([0.1, 0.2, 0.3]);
    expect(copyPreference('kb-products', '{"q":"tent"}', vector)).toBe(
      copyPreference('kb-products', '{"q":"tent"}', new Float32Array([0.1, 0.2, 0.3])),
    );
    expect(copyPreference('kb-products', '{"q":"tent"}', vector)).not.toBe(
      copyPreference('kb-products', '{"q":"tents"}', vector),
    );
    expect(copyPreference('kb-products', '{"q":"tent"}', vector)).not.toBe(
      copyPreference('kb-products', '{"q":"tent"}', new Float32Array([0.1, 0.2, 0.31])),
    );
    // Parts are kept apart: "ab" + "c" is not "a" + "bc".
    expect(copyPreference('ab', 'c')).not.toBe(copyPreference('a', 'bc'));
  });

  test('when preferences are made, then none starts with "_" (Elasticsearch reserves those)', () => {
    for (let i = 0; i < 500; i++) expect(copyPreference(String(i))).toMatch(/^q[A-Za-z0-9_-]{22}$/);
  });

  test('when a product search runs, then each of its searches carries the preference of its query and tenant', async () => {
    const asked: { searches: object[] }[] = [];
    const es = {
      msearch: async (params: { searches: object[] }) => {
        asked.push(params);
        return { responses: [0, 1, 2].map(() => ({ hits: { hits: [] } })) };
      },
    } as unknown as Client;
    const search = (tenant: string, query: string) =>
      hybridMatches(es, {
        index: 'kb-products',
        query,
        size: 10,
        limit: 5,
        filter: productFilter(tenant, { priceMin: undefined, priceMax: undefined, excludeParents: false }),
        fields: PRODUCT_SEARCH,
        queryVector: new Float32Array([0.5, 0.5]),
      });
    await search('shop1', 'rain jacket');
    await search('shop1', 'rain jacket');
    await search('shop1', 'tent');
    await search('shop2', 'rain jacket');
    const preferences = asked.map(({ searches }) => {
      const headers = searches.filter((_, i) => i % 2 === 0) as { preference?: string }[];
      expect(new Set(headers.map((h) => h.preference)).size).toBe(1); // every search of one request alike
      return headers[0]?.preference;
    });
    expect(preferences[0]).toMatch(/^q/);
    expect(preferences[1]).toBe(preferences[0]);
    expect(new Set(preferences).size).toBe(3);
  });
});
