import { RefreshCoalescer } from '../src/data-access/refresh-coalescer';

/** A refresh function whose calls the test finishes by hand, in order. */
function manualRefreshes() {
  const calls: { index: string; done: () => void; fail: (err: Error) => void }[] = [];
  const refresh = (index: string) =>
    new Promise<void>((resolve, reject) => calls.push({ index, done: resolve, fail: reject }));
  return { calls, coalescer: new RefreshCoalescer(refresh) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('RefreshCoalescer', () => {
  it('refreshes at once when no refresh of that index runs', async () => {
    const { calls, coalescer } = manualRefreshes();
    let resolved = false;
    const waiting = coalescer.after('products').then(() => (resolved = true));
    expect(calls.map((c) => c.index)).toEqual(['products']);
    await settle();
    expect(resolved).toBe(false);
    calls[0]!.done();
    await waiting;
    expect(resolved).toBe(true);
  });

  it('makes the writers that ask during a refresh wait for one that begins after it, shared by all of them', async () => {
    const { calls, coalescer } = manualRefreshes();
    const first = coalescer.after('products');
    const order: string[] = [];
    const later = ['a', 'b', 'c', 'd'].map((w) => coalescer.after('products').then(() => order.push(w)));
    expect(calls).toHaveLength(1);
    // The running refresh may have begun before their writes: finishing it answers none of them.
    calls[0]!.done();
    await first;
    await settle();
    expect(order).toEqual([]);
    expect(calls).toHaveLength(2);
    calls[1]!.done();
    await Promise.all(later);
    expect(order.sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(calls).toHaveLength(2);
  });

  it('keeps indices apart', async () => {
    const { calls, coalescer } = manualRefreshes();
    const products = coalescer.after('products');
    const entries = coalescer.after('entries');
    expect(calls.map((c) => c.index)).toEqual(['products', 'entries']);
    calls.forEach((c) => c.done());
    await Promise.all([products, entries]);
  });

  it('rejects only the writers of the refresh that failed; the next writers get a refresh of their own', async () => {
    const { calls, coalescer } = manualRefreshes();
    const first = coalescer.after('products');
    const second = coalescer.after('products');
    calls[0]!.fail(new Error('unavailable'));
    await expect(first).rejects.toThrow('unavailable');
    await settle();
    // The queued writers' refresh starts after the failed one and succeeds on its own.
    expect(calls).toHaveLength(2);
    calls[1]!.done();
    await expect(second).resolves.toBeUndefined();
    const third = coalescer.after('products');
    expect(calls).toHaveLength(3);
    calls[2]!.done();
    await expect(third).resolves.toBeUndefined();
  });

  it('holds one refresh in flight and one queued however many writers come', async () => {
    const { calls, coalescer } = manualRefreshes();
    const all: Promise<void>[] = [];
    for (let round = 0; round < 5; round++) {
      for (let w = 0; w < 10; w++) all.push(coalescer.after('products'));
      expect(calls.filter((c) => c !== undefined)).toHaveLength(round + 1);
      calls[round]!.done();
      await settle();
    }
    calls[5]!.done();
    await Promise.all(all);
    expect(calls).toHaveLength(6);
  });
});
