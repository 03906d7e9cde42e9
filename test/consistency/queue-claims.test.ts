/**
 * The index queues' leased claims and the tenant leases, against the run's real MongoDB
 * wire-protocol server: what two replicas' indexers (or a replica that died) see of each other.
 */
import mongoose from 'mongoose';
import { indexedFilter, mongoLeases, mongoQueueClaims, unclaimed, type LeaseDoc } from '@kb/mongo';
import { withClaims } from '@kb/indexing';
import { databaseUri, uniqueId } from '../support/stack';

let conn: mongoose.Connection;
let queue: mongoose.mongo.Collection;

beforeAll(async () => {
  conn = await mongoose.createConnection(databaseUri(uniqueId('kbtest'))).asPromise();
  queue = conn.db!.collection('queued');
});
afterAll(async () => {
  await conn?.dropDatabase();
  await conn?.close();
});

const ids = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i}` }));
async function queued(prefix: string, n: number): Promise<{ id: string }[]> {
  const items = ids(n, prefix);
  await queue.insertMany(
    items.map((i) => ({ _id: i.id, tenant_id: 't', version: 1, queued: true })) as unknown as mongoose.mongo.Document[],
  );
  return items;
}
const claims = () =>
  mongoQueueClaims<{ id: string; index_seq?: number }>(queue, { queued: true }, (d) => ({
    id: String(d._id),
    index_seq: d.index_seq as number,
  }));

describe('leased claims on an index queue', () => {
  test('when two indexers claim the same 200 queued documents at once, then each document is held by exactly one', async () => {
    const items = await queued('race', 200);
    const [a, b] = await Promise.all([
      claims().take(items, { owner: 'a', untilMs: Date.now() + 30_000 }),
      claims().take(items, { owner: 'b', untilMs: Date.now() + 30_000 }),
    ]);
    expect(a.length + b.length).toBe(200);
    const both = new Set([...a, ...b].map((d) => d.id));
    expect(both.size).toBe(200);
  });

  test('when the holder of a claim dies, then another takes the documents once its lease has run out, not before', async () => {
    const items = await queued('dead', 5);
    expect(await claims().take(items, { owner: 'dead', untilMs: Date.now() + 300 })).toHaveLength(5);
    expect(await claims().take(items, { owner: 'other', untilMs: Date.now() + 30_000 })).toHaveLength(0);
    expect(
      await queue.countDocuments({ _id: { $in: items.map((i) => i.id) }, ...unclaimed(new Date()) } as never),
    ).toBe(0);
    await new Promise((r) => setTimeout(r, 400));
    expect(await claims().take(items, { owner: 'other', untilMs: Date.now() + 30_000 })).toHaveLength(5);
  });

  test('when an attempt ends, whatever its outcome, then its claims are given back and renewed while it ran', async () => {
    const items = await queued('work', 3);
    let during: unknown[] = [];
    await expect(
      withClaims(
        claims(),
        items,
        async (held) => {
          expect(held).toHaveLength(3);
          await new Promise((r) => setTimeout(r, 250)); // past the lease: renewed every third of it
          during = await claims().take(items, { owner: 'intruder', untilMs: Date.now() + 1000 });
          throw new Error('the call failed');
        },
        150,
      ),
    ).rejects.toThrow('the call failed');
    expect(during).toHaveLength(0);
    expect(await claims().take(items, { owner: 'next', untilMs: Date.now() + 1000 })).toHaveLength(3);
  });

  test('when a call ends without an answer, then its claims are kept until it could no longer start, then freed', async () => {
    const items = await queued('doubt', 4);
    await withClaims(claims(), items, async (held, { keep }) => {
      keep(held.slice(0, 2), Date.now() + 400); // two documents' call timed out: it may still run until then
    });
    const now = await claims().take(items, { owner: 'next', untilMs: Date.now() + 1000 });
    expect(now.map((d) => d.id).sort()).toEqual(['doubt-2', 'doubt-3']);
    await new Promise((r) => setTimeout(r, 450));
    const later = await claims().take(items, { owner: 'later', untilMs: Date.now() + 1000 });
    expect(later.map((d) => d.id).sort()).toEqual(['doubt-0', 'doubt-1']);
  });

  test('when a document changed after it was read (its counter moved), then marking the read version indexed matches nothing', async () => {
    await queue.insertOne({ _id: 'seq-1', tenant_id: 't', version: 4, queued: true } as never);
    const [read] = await claims().take([{ id: 'seq-1' }], { owner: 'a', untilMs: Date.now() + 1000 });
    expect(read).toEqual({ id: 'seq-1', index_seq: 0 });
    const filter = indexedFilter({ tenant_id: 't', id: 'seq-1', version: 4, index_seq: read!.index_seq });
    expect(await queue.countDocuments(filter as never)).toBe(1);
    await queue.updateOne({ _id: 'seq-1' } as never, { $inc: { index_seq: 1 } }); // a site assignment: no new version
    expect(await queue.countDocuments(filter as never)).toBe(0);
  });
});

describe('tenant leases', () => {
  test('when twenty attempts take the same lease at once, then exactly one holds it until it gives it back', async () => {
    const leases = mongoLeases(conn.db!.collection<LeaseDoc>('leases'));
    const taken = await Promise.all(
      Array.from({ length: 20 }, (_, i) => leases.take('skill-index/t', 't', `o${i}`, 10_000)),
    );
    expect(taken.filter(Boolean)).toHaveLength(1);
    const holder = `o${taken.indexOf(true)}`;
    expect(await leases.giveBack('skill-index/t', 'o-not-holding')).toBe(false);
    expect(await leases.giveBack('skill-index/t', holder)).toBe(true);
    expect(await leases.take('skill-index/t', 't', 'next', 10_000)).toBe(true);
  });

  test('when the holder stalls past its time, then another takes the lease and the stalled one learns it on giving back', async () => {
    const leases = mongoLeases(conn.db!.collection<LeaseDoc>('leases'));
    expect(await leases.take('skill-index/u', 'u', 'slow', 100)).toBe(true);
    expect(await leases.take('skill-index/u', 'u', 'fast', 10_000)).toBe(false);
    await new Promise((r) => setTimeout(r, 150));
    expect(await leases.take('skill-index/u', 'u', 'fast', 10_000)).toBe(true);
    expect(await leases.giveBack('skill-index/u', 'slow')).toBe(false);
  });
});
