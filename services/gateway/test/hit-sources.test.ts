import { hitSources, LEAN_MISS_RATE } from '../src/read-path/hit-sources';

describe("the read path's kept hit sources", () => {
  test('when a source is kept, then only a hit of the same index, id and version gets it', () => {
    const kept = hitSources({ maxChars: 10_000 });
    kept.set('products-a', 'p1', 3, { hit: { title: 'Shoe' } });
    expect(kept.get('products-a', 'p1', 3)).toEqual({ hit: { title: 'Shoe' } });
    expect(kept.get('products-a', 'p1', 4)).toBeUndefined(); // written since: read again
    expect(kept.get('products-a', 'p1', 2)).toBeUndefined();
    expect(kept.get('products-b', 'p1', 3)).toBeUndefined(); // another index (a reindex)
    kept.set('products-a', 'p1', 4, { hit: { title: 'Shoe (sale)' } });
    expect(kept.get('products-a', 'p1', 3)).toBeUndefined();
    expect(kept.get('products-a', 'p1', 4)).toEqual({ hit: { title: 'Shoe (sale)' } });
  });

  test('when the kept JSON passes its bound, then the least recently used sources go first', () => {
    const source = { hit: { title: 'x'.repeat(80) } }; // ~100 characters of JSON with its key
    const kept = hitSources({ maxChars: 1_000 });
    for (let i = 0; i < 20; i++) kept.set('idx', `p${i}`, 1, source);
    const still = Array.from({ length: 20 }, (_, i) => kept.get('idx', `p${i}`, 1) !== undefined);
    expect(still.filter(Boolean).length).toBeLessThanOrEqual(10);
    expect(still.at(-1)).toBe(true);
    expect(still[0]).toBe(false);
  });

  test('when an alias is new, then its searches read _source until most hits were kept', () => {
    const kept = hitSources({ maxChars: 10_000 });
    expect(kept.lean('products')).toBe(false);
    let searches = 0;
    while (!kept.lean('products') && searches < 100) {
      kept.observe('products', 10, 0);
      searches += 1;
    }
    expect(searches).toBeGreaterThan(3); // one search with every hit kept is not enough
    expect(searches).toBeLessThan(20);
    expect(kept.lean('other')).toBe(false); // per alias
  });

  test('when many hits are not kept, then searches read _source again; a rare one does not switch', () => {
    const kept = hitSources({ maxChars: 10_000 });
    for (let i = 0; i < 30; i++) kept.observe('products', 10, 0);
    expect(kept.lean('products')).toBe(true);
    kept.observe('products', 10, 1); // a product written since
    expect(kept.lean('products')).toBe(true);
    kept.observe('products', 10, 10); // a part of the catalogue not kept (or a reindex)
    expect(kept.lean('products')).toBe(false);
    for (let i = 0; i < 30; i++) kept.observe('products', 10, 0);
    expect(kept.lean('products')).toBe(true);
    kept.observe('products', 0, 0); // no hit says nothing
    expect(kept.lean('products')).toBe(true);
    expect(LEAN_MISS_RATE).toBeGreaterThan(0);
  });
});
