import { ANCHOR_CONFIRMED_MS, anchorCache } from '../src/read-path/read-path';

const anchor = (id: string, version: number) => ({
  id,
  version,
  source: { tenant_id: 't', vector_description: [1, 0] },
});

describe("the read path's anchor cache", () => {
  afterEach(() => jest.useRealTimers());

  test('when an anchor was just read, then it counts as confirmed until the window passes', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const cache = anchorCache();
    cache.set(anchor('a', 3));
    expect(cache.get('a')?.version).toBe(3);
    expect(cache.confirmed('a')).toBe(true);
    jest.setSystemTime(1_000_000 + ANCHOR_CONFIRMED_MS - 1);
    expect(cache.confirmed('a')).toBe(true);
    jest.setSystemTime(1_000_000 + ANCHOR_CONFIRMED_MS);
    expect(cache.confirmed('a')).toBe(false);
    // The index confirmed the version again: a new window starts.
    cache.confirm('a');
    expect(cache.confirmed('a')).toBe(true);
  });

  test('when a product is written through the gateway, then its kept vectors are gone at once', () => {
    const cache = anchorCache();
    cache.set(anchor('a', 1));
    cache.forget('a');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.confirmed('a')).toBe(false);
  });

  test('when an anchor was never kept, then it is not confirmed and confirming it keeps nothing', () => {
    const cache = anchorCache();
    cache.confirm('x');
    expect(cache.confirmed('x')).toBe(false);
    expect(cache.get('x')).toBeUndefined();
  });
});
