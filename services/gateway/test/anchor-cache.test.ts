import { ANCHOR_CONFIRMED_MS, anchorCache } from '../src/read-path/anchor-cache';
import { PRELOAD_AGAIN_MS, readAheadDue } from '../src/read-path/anchor-read-ahead';
import { INDEX_WATCH_IDLE_MS, INDEX_WATCH_MS, indexWatch } from '../src/read-path/index-watch';

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

describe("the read path's index watch", () => {
  afterEach(() => jest.useRealTimers());

  /** An Elasticsearch client answering the indexing stats with `total` index operations. */
  const client = () => {
    const counters = { total: 1, refreshes: 4, calls: 0 };
    const es = {
      indices: {
        stats: async () => {
          counters.calls += 1;
          return {
            indices: { 'kb-products-1': {} },
            _all: {
              primaries: {
                indexing: { index_total: counters.total },
                refresh: { external_total: counters.refreshes },
              },
            },
          };
        },
      },
    };
    return { es: es as unknown as Parameters<typeof indexWatch>[0], counters };
  };

  test(
    'when similar searches come, then the counters are read every interval and a write is seen as a change; ' +
      'when none comes for the idle time, then the reads stop and the watch says nothing',
    async () => {
      jest.useFakeTimers({ now: 1_000_000 });
      const { es, counters } = client();
      const watch = indexWatch(es, 'kb-products');
      await watch.touch();
      const first = watch.state();
      expect(first?.value).toBe('kb-products-1:1:?');
      await jest.advanceTimersByTimeAsync(INDEX_WATCH_MS);
      expect(watch.state()).toEqual({ ...first, seenAt: expect.any(Number) }); // unchanged: changedAt kept
      expect(first?.searchable).toBe('kb-products-1:1:?:4');
      // A refresh (what searches see changed) leaves the write counters, and so the anchors, as they were.
      counters.refreshes = 5;
      await jest.advanceTimersByTimeAsync(INDEX_WATCH_MS);
      expect(watch.state()).toEqual({ ...first, searchable: 'kb-products-1:1:?:5', seenAt: expect.any(Number) });
      counters.total = 2;
      await jest.advanceTimersByTimeAsync(INDEX_WATCH_MS);
      expect(watch.state()?.value).toBe('kb-products-1:2:?');
      expect(watch.state()?.searchable).toBe('kb-products-1:2:?:5');
      expect(watch.state()?.changedAt).toBeGreaterThan(first!.changedAt);

      await jest.advanceTimersByTimeAsync(INDEX_WATCH_IDLE_MS + INDEX_WATCH_MS);
      const calls = counters.calls;
      await jest.advanceTimersByTimeAsync(10 * INDEX_WATCH_MS);
      expect(counters.calls).toBe(calls);
      expect(watch.state()).toBeUndefined();
      // The next search starts it again.
      await watch.touch();
      expect(counters.calls).toBe(calls + 1);
      expect(watch.state()?.value).toBe('kb-products-1:2:?');
      watch.stop();
    },
  );
});

describe("the read path's reading ahead", () => {
  test('when a tenant is searched for the first time, then its vectors are read ahead', () => {
    expect(readAheadDue(undefined, false, 0)).toBe(true);
    expect(readAheadDue(undefined, true, 0)).toBe(true);
  });

  test('when an anchor is not kept, then they are read again only once the interval has passed since the last read', () => {
    const started = 1_000_000;
    expect(readAheadDue(started, true, started + PRELOAD_AGAIN_MS - 1)).toBe(false);
    expect(readAheadDue(started, true, started + PRELOAD_AGAIN_MS)).toBe(true);
  });

  test('when every anchor is kept, then nothing is read again however long ago the last read was', () => {
    expect(readAheadDue(1_000_000, false, 1_000_000 + 10 * PRELOAD_AGAIN_MS)).toBe(false);
  });
});
