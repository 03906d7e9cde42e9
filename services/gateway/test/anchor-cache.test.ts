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
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.confirmed('a')).toBe(false);
  });

  test('when an anchor was never kept, then it is not confirmed and confirming it keeps nothing', () => {
    const cache = anchorCache();
    cache.confirm('x');
    expect(cache.confirmed('x')).toBe(false);
    expect(cache.get('x')).toBeUndefined();
  });

  describe('with the index watched', () => {
    const T0 = 1_000_000;
    let state: { value: string; changedAt: number } | undefined;
    const cache = () => anchorCache(() => state);

    test('when the index is not written after an anchor is read, then it stays confirmed past the window, until a write', () => {
      jest.useFakeTimers({ now: T0 });
      state = { value: 'idx:10:0', changedAt: T0 - 60_000 };
      const c = cache();
      c.set(anchor('a', 3));
      jest.setSystemTime(T0 + 10 * ANCHOR_CONFIRMED_MS);
      expect(c.confirmed('a')).toBe(true);
      state = { value: 'idx:11:0', changedAt: T0 + 10 * ANCHOR_CONFIRMED_MS };
      expect(c.confirmed('a')).toBe(false);
    });

    test('when the index was written just before a read, then only the window confirms the anchor (the read may predate it)', () => {
      jest.useFakeTimers({ now: T0 });
      state = { value: 'idx:11:0', changedAt: T0 - 500 };
      const c = cache();
      c.set(anchor('a', 3));
      jest.setSystemTime(T0 + ANCHOR_CONFIRMED_MS);
      expect(c.confirmed('a')).toBe(false);
    });

    test('when anchors read ahead carry the state seen before, they hold while it does; none known: only the window', () => {
      jest.useFakeTimers({ now: T0 });
      state = { value: 'idx:12:0', changedAt: T0 - 100 };
      const c = cache();
      c.set(anchor('a', 1), 'idx:12:0');
      c.set(anchor('b', 1), null);
      jest.setSystemTime(T0 + 5 * ANCHOR_CONFIRMED_MS);
      expect(c.confirmed('a')).toBe(true);
      expect(c.confirmed('b')).toBe(false);
      state = undefined; // the watch says nothing (stopped, or its read failed)
      expect(c.confirmed('a')).toBe(false);
    });
  });
});
