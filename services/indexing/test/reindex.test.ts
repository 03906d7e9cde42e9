/**
 * The reindex routine (src/reindex.ts) with in-memory stand-ins for MongoDB and the similarity
 * service: it pages, it writes a failed page again and then gives up leaving the alias alone, a
 * resumed run continues after its last finished page, and it queues again what was written while it ran.
 */
import { reindex, type ReindexPageOutcome, type ReindexRun, type ReindexRunStore } from '../src/reindex';
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
  const noWait = { attempts: 2, delayMs: 1 };

  test('when documents of a page stay unindexed after the retries, then the run gives up: no swap, nothing queued again', async () => {
    const collection = fakeCollection(25);
    collection.docs[3]!.updated_at = new Date(Date.now() + 1_000);
    const { calls, similarity } = fakeSimilarity();
    const written: string[] = [];
    const result = await reindex({
      ...plan(collection, similarity, async (docs) => {
        written.push(docs[0]!.id);
        return docs[0]!.id === 'e-0010' ? { indexed: docs.length - 2, refused: 0 } : allIndexed(docs);
      }),
      retry: noWait,
    });
    expect(calls.map((c) => c.method)).toEqual(['BeginReindex']);
    expect(result.finished).toBeUndefined();
    expect(result).toMatchObject({ done: 10, failed: 2 });
    expect(written).toEqual(['e-0000', 'e-0010', 'e-0010', 'e-0010']); // the failed page written 1 + 2 times
    expect(collection.requeued).toEqual([]);
  });

  test('when writing a page throws and then succeeds, then the page is written again after a wait and the run finishes', async () => {
    const collection = fakeCollection(15);
    const { calls, similarity } = fakeSimilarity();
    let failures = 1;
    const retries: number[] = [];
    const result = await reindex({
      ...plan(collection, similarity, async (docs) => {
        if (docs[0]!.id === 'e-0010' && failures-- > 0) throw new Error('similarity service unavailable');
        return allIndexed(docs);
      }),
      retry: { attempts: 3, delayMs: 5 },
      onRetry: (_attempt, delayMs) => retries.push(delayMs),
    });
    expect(retries).toEqual([5]);
    expect(calls.map((c) => c.method)).toEqual(['BeginReindex', 'FinishReindex']);
    expect(result).toMatchObject({ done: 15, indexed: 15, failed: 0 });
  });

  test('when writing a page keeps throwing, then the run gives up with the error and the alias stays', async () => {
    const collection = fakeCollection(15);
    const { calls, similarity } = fakeSimilarity();
    const result = await reindex({
      ...plan(collection, similarity, async (docs) => {
        if (docs[0]!.id === 'e-0010') throw new Error('similarity service unavailable');
        return allIndexed(docs);
      }),
      retry: noWait,
    });
    expect(calls.map((c) => c.method)).toEqual(['BeginReindex']);
    expect(result).toMatchObject({ done: 10, indexed: 10, failed: 5, error: 'similarity service unavailable' });
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

/** A run store in memory, as MongoDB keeps it (one run per kind). */
function memoryRuns() {
  const runs = new Map<string, ReindexRun>();
  const store: ReindexRunStore = {
    last: async (kind) => runs.get(kind) ?? null,
    save: async (run) => void runs.set(run.kind, { ...run }),
  };
  return { runs, store };
}

describe('resume', () => {
  test('when a run gave up and is resumed, then it continues into the same index after its last finished page and swaps', async () => {
    const collection = fakeCollection(35);
    const { calls, similarity } = fakeSimilarity();
    const { runs, store } = memoryRuns();
    let down = true;
    const pages: string[] = [];
    const indexPage = async (docs: Doc[]) => {
      pages.push(docs[0]!.id);
      if (docs[0]!.id === 'e-0020' && down) throw new Error('Elasticsearch unavailable');
      return allIndexed(docs);
    };
    const first = await reindex({
      ...plan(collection, similarity, indexPage),
      runs: store,
      retry: { attempts: 0, delayMs: 1 },
    });
    expect(first.finished).toBeUndefined();
    expect(runs.get('entries')).toMatchObject({ after: 'e-0019', done: 20, status: 'running', index: 'kb-entries-2' });

    down = false;
    pages.length = 0;
    const resumed = await reindex({ ...plan(collection, similarity, indexPage), runs: store, resume: true });
    expect(pages).toEqual(['e-0020', 'e-0030']); // not the first two pages again
    expect(calls.map((c) => c.method)).toEqual(['BeginReindex', 'FinishReindex']); // no second index
    expect(resumed).toMatchObject({ done: 35, indexed: 35, resumedAfter: 'e-0019', index: 'kb-entries-2' });
    expect(runs.get('entries')?.status).toBe('finished');
  });

  test('when --resume finds no unfinished run, then it starts a new one', async () => {
    const collection = fakeCollection(5);
    const { calls, similarity } = fakeSimilarity();
    const { store } = memoryRuns();
    const result = await reindex({ ...plan(collection, similarity, allIndexed), runs: store, resume: true });
    expect(calls.map((c) => c.method)).toEqual(['BeginReindex', 'FinishReindex']);
    expect(result.resumedAfter).toBeUndefined();
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
