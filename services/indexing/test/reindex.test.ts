/**
 * The reindex routine (src/reindex.ts) with in-memory stand-ins for MongoDB and the similarity
 * service: it pages, it leaves the alias alone after a failure, and it queues again what was
 * written while it ran.
 */
import { reindex, type ReindexPageOutcome } from '../src/reindex';
import { systemCaller, type SimilarityClient } from '@kb/platform';

interface Doc {
  id: string;
  updated_at: Date;
}

const HOUR_AGO = new Date(Date.now() - 3_600_000);

/** The similarity service's reindex calls, recorded in order. */
function fakeSimilarity() {
  const calls: { method: string; request: Record<string, unknown> }[] = [];
  const call = async (method: string, request: Record<string, unknown>) => {
    calls.push({ method, request });
    if (method === 'BeginReindex') return { index: 'kb-entries-2', alias: 'kb-entries' };
    if (method === 'FinishReindex')
      return { index: request.index, alias: 'kb-entries', removed_indices: ['kb-entries-1'] };
    throw new Error(`unexpected ${method}`);
  };
  return { calls, similarity: { call } as unknown as SimilarityClient };
}

/** A collection in id order, read a page at a time; records every page read. */
function fakeCollection(count: number) {
  const docs: Doc[] = Array.from({ length: count }, (_, i) => ({
    id: `e-${String(i).padStart(4, '0')}`,
    updated_at: HOUR_AGO,
  }));
  const pagesRead: number[] = [];
  return {
    docs,
    pagesRead,
    page: async (after: string, limit: number) => {
      const page = docs.filter((d) => d.id > after).slice(0, limit);
      pagesRead.push(page.length);
      return page;
    },
    requeued: [] as string[],
    requeueWrittenSince(since: Date) {
      const written = docs.filter((d) => d.updated_at >= since).map((d) => d.id);
      this.requeued.push(...written);
      return Promise.resolve(written.length);
    },
  };
}

const allIndexed = async (docs: Doc[]): Promise<ReindexPageOutcome> => ({ indexed: docs.length, refused: 0 });

function plan(
  collection: ReturnType<typeof fakeCollection>,
  similarity: SimilarityClient,
  indexPage: (docs: Doc[], target: string) => Promise<ReindexPageOutcome>,
) {
  return {
    kind: 'entries' as const,
    similarity,
    caller: systemCaller('test', ''),
    pageSize: 10,
    page: collection.page,
    indexPage,
    requeueWrittenSince: (since: Date) => collection.requeueWrittenSince(since),
  };
}

test('when a collection is reindexed, then it is read and written a page at a time into the new index, never all at once', async () => {
  const collection = fakeCollection(25);
  const { calls, similarity } = fakeSimilarity();
  const written: { ids: string[]; target: string }[] = [];
  const result = await reindex(
    plan(collection, similarity, async (docs, target) => {
      written.push({ ids: docs.map((d) => d.id), target });
      return allIndexed(docs);
    }),
  );
  expect(collection.pagesRead).toEqual([10, 10, 5, 0]);
  expect(written.map((w) => w.ids.length)).toEqual([10, 10, 5]);
  expect(written.flatMap((w) => w.ids)).toEqual(collection.docs.map((d) => d.id));
  expect(new Set(written.map((w) => w.target))).toEqual(new Set(['kb-entries-2']));
  expect(calls.map((c) => c.method)).toEqual(['BeginReindex', 'FinishReindex']);
  expect(result).toMatchObject({
    done: 25,
    indexed: 25,
    refused: 0,
    failed: 0,
    index: 'kb-entries-2',
    finished: { removed_indices: ['kb-entries-1'] },
  });
});

describe('no alias swap after a failure', () => {
  test('when some documents of a page are not indexed, then FinishReindex is not called and nothing is queued again', async () => {
    const collection = fakeCollection(25);
    collection.docs[3]!.updated_at = new Date(Date.now() + 1_000);
    const { calls, similarity } = fakeSimilarity();
    let page = 0;
    const result = await reindex(
      plan(collection, similarity, async (docs) =>
        page++ === 1 ? { indexed: docs.length - 2, refused: 0 } : allIndexed(docs),
      ),
    );
    expect(calls.map((c) => c.method)).toEqual(['BeginReindex']);
    expect(result.finished).toBeUndefined();
    expect(result).toMatchObject({ done: 25, failed: 2 });
    expect(collection.requeued).toEqual([]);
  });

  test('when writing a page throws, then its documents count as failed and the alias stays', async () => {
    const collection = fakeCollection(15);
    const { calls, similarity } = fakeSimilarity();
    const result = await reindex(
      plan(collection, similarity, async (docs) => {
        if (docs[0]!.id === 'e-0010') throw new Error('similarity service unavailable');
        return allIndexed(docs);
      }),
    );
    expect(calls.map((c) => c.method)).toEqual(['BeginReindex']);
    expect(result).toMatchObject({ done: 15, indexed: 10, failed: 5, error: 'similarity service unavailable' });
    expect(result.finished).toBeUndefined();
  });

  test('when documents are only refused (any index of this mapping would refuse them), then the alias is swapped anyway', async () => {
    const collection = fakeCollection(12);
    const { calls, similarity } = fakeSimilarity();
    const result = await reindex(
      plan(collection, similarity, async (docs) => ({ indexed: docs.length - 1, refused: 1 })),
    );
    expect(calls.map((c) => c.method)).toEqual(['BeginReindex', 'FinishReindex']);
    expect(result).toMatchObject({ indexed: 10, refused: 2, failed: 0 });
    expect(result.finished).toBeDefined();
  });
});

test('when documents are written while the reindex runs, then after the swap exactly those are queued for the indexer', async () => {
  const collection = fakeCollection(30);
  const { calls, similarity } = fakeSimilarity();
  const order: string[] = [];
  const result = await reindex({
    ...plan(collection, similarity, async (docs) => {
      // A write lands on a document already copied, while a later page is being written.
      if (docs[0]!.id === 'e-0020') collection.docs[4]!.updated_at = new Date();
      return allIndexed(docs);
    }),
    requeueWrittenSince: (since: Date) => {
      order.push(calls.at(-1)?.method ?? '');
      return collection.requeueWrittenSince(since);
    },
  });
  expect(collection.requeued).toEqual(['e-0004']);
  expect(result.finished?.requeued).toBe(1);
  expect(order).toEqual(['FinishReindex']); // queued again after the swap, so the indexer writes to the new index
});
