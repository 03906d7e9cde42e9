import { catalogue, entries, entryQueries, productQueries } from '../src/catalogue';

describe("the benchmark's catalogue (words from tools/bench/data/)", () => {
  it('when the same seed is used twice, then the products, entries and queries are the same', () => {
    expect(catalogue(50)).toEqual(catalogue(50));
    expect(entries(20)).toEqual(entries(20));
    expect(productQueries(20)).toEqual(productQueries(20));
    expect(entryQueries(20)).toEqual(entryQueries(20));
  });

  it('when the default seed is used, then the catalogue opens with the products earlier runs measured', () => {
    const [parent, ...variants] = catalogue(4);
    expect(parent).toMatchObject({ title: 'Gringotts Armbanduhr 893', language: 'de', is_parent: true });
    expect(parent?.search_keywords).toEqual(['wrist watch', 'steel', 'white']);
    expect(variants.every((v) => v.is_variant && v.parent_external_id === 'bench-0')).toBe(true);
    expect(entries(1)[0]?.title).toBe('Returns for headphones #0');
  });
});
