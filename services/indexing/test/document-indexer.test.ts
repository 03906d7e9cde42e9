/**
 * The one document indexer (src/document-indexer.ts) with fakes of what a kind injects (its
 * store and its similarity calls): what a pass claims from the queues, what it marks, records
 * and retries, in which order, and when writes stop waiting for the index.
 */
import {
  WRITES_PAUSE_MS,
  documentIndexer,
  type DocumentVersion,
  type IndexCalls,
  type IndexStore,
} from '../src/document-indexer';
import { AppError, type Caller, type Logger, type similarityV1 } from '@kb/platform';

type Doc = DocumentVersion & { text: string };
type Answer = 'unavailable' | 'invalid' | ((docs: Doc[]) => similarityV1.IndexResult__Output[]);

const doc = (id: string, tenant = 't1', version = 1): Doc => ({ id: id, tenant_id: tenant, version, text: id });
const indexed = (docs: Doc[]) => docs.map((d) => ({ id: d.id, status: 'indexed', embeddings: 'computed', error: '' }));

/** A store and similarity calls that write down, in order, every step the indexer takes. */
function fakes(options: {
  pending?: Doc[];
  deletions?: DocumentVersion[];
  /** The index calls' answers in turn (then: every document indexed). */
  answers?: Answer[];
  /** The delete calls' answers in turn (then: deleted). */
  deleteAnswers?: 'unavailable'[];
  reindexed?: boolean;
}) {
  const steps: string[] = [];
  const errors: { fields: Record<string, unknown>; msg: string }[] = [];
  let queue = [...(options.pending ?? [])];
  let deletions = [...(options.deletions ?? [])];
  const answers = [...(options.answers ?? [])];
  const deleteAnswers = [...(options.deleteAnswers ?? [])];
  let indexErrors = 0;
  const store: IndexStore<Doc> = {
    pending: async (limit) => {
      steps.push(`read pending ${limit}`);
      return queue.slice(0, limit);
    },
    pendingDeletions: async (limit) => {
      steps.push(`read deletions ${limit}`);
      return deletions.slice(0, limit);
    },
    deletionDone: async (d) => {
      steps.push(`deletion done ${d.id}`);
      deletions = deletions.filter((x) => x.id !== d.id);
    },
    markIndexed: async (done) => {
      steps.push(`mark indexed ${done.map((d) => `${d.id}@${d.version}:${d.model}`).join(' ')}`);
      queue = queue.filter((q) => !done.some((d) => d.id === q.id));
    },
    ...(options.reindexed
      ? {
          markReindexed: async (done: { id: string }[]) => {
            steps.push(`mark reindexed ${done.map((d) => d.id).join(' ')}`);
          },
        }
      : {}),
    markRefused: async (d, message) => {
      steps.push(`record error ${d.id}: ${message}`);
      queue = queue.filter((q) => q.id !== d.id);
      indexErrors += 1;
      return true;
    },
    countIndexErrors: async () => indexErrors,
  };
  const calls: IndexCalls<Doc> = {
    index: async (caller: Caller, docs, call) => {
      const target = call.targetIndex ? ` into ${call.targetIndex}` : '';
      steps.push(`index ${caller.tenant_id || '*'}: ${docs.map((d) => d.id).join(' ')}${target}`);
      const answer = answers.shift() ?? indexed;
      if (answer === 'unavailable') throw AppError.unavailable('similarity service unavailable');
      if (answer === 'invalid') throw new AppError('invalid', 'document_parsing_exception');
      return { model: 'mini', results: answer(docs) };
    },
    remove: async (caller: Caller, documents) => {
      steps.push(`delete ${caller.tenant_id}: ${documents.map((d) => `${d.id}@${d.version}`).join(' ')}`);
      if (deleteAnswers.shift() === 'unavailable') throw AppError.unavailable('similarity service unavailable');
      return { deleted: documents.length };
    },
  };
  const logger = {
    error: (fields: Record<string, unknown>, msg: string) => errors.push({ fields, msg }),
    warn: () => undefined,
    info: () => undefined,
    debug: () => undefined,
  } as unknown as Logger;
  const indexer = documentIndexer<Doc>({ kind: 'entries', indexerId: 'test', store, calls, logger });
  return { steps, errors, indexer, queue: () => queue };
}

describe('a background pass', () => {
  test('when documents wait, then deletions first, a call per tenant, refusals recorded, versions marked with their model', async () => {
    const { steps, errors, indexer } = fakes({
      deletions: [{ id: 'gone', tenant_id: 't2', version: 3 }],
      pending: [doc('a'), doc('b'), doc('c', 't2')],
      answers: [
        () => [
          { id: 'a', status: 'indexed', embeddings: 'computed', error: '' },
          { id: 'b', status: 'failed', embeddings: '', error: 'mapper_parsing_exception: too long' },
        ],
        (docs) => docs.map((d) => ({ id: d.id, status: 'stale', embeddings: '', error: '' })),
      ],
    });
    const pass = await indexer.background({ intervalMs: 100, batchSize: 10 }).runOnce();
    expect(steps).toEqual([
      'read deletions 10',
      'delete t2: gone@3',
      'deletion done gone',
      'read pending 10',
      'index t1: a b',
      'record error b: mapper_parsing_exception: too long',
      'mark indexed a@1:mini',
      'index t2: c',
      'mark indexed c@1:',
    ]);
    expect(pass).toEqual({ done: 4, failed: false, more: false });
    expect(errors).toEqual([
      {
        fields: {
          tenant_id: 't1',
          entry_id: 'b',
          version: 1,
          error: 'mapper_parsing_exception: too long',
          index_errors: 1,
        },
        msg: 'the search index refused an entry; not retried until it changes (npm run admin -- index errors)',
      },
    ]);
  });

  test('when the whole call is refused, then each document is sent alone and only the one at fault gets an index error', async () => {
    const { steps, indexer } = fakes({
      pending: [doc('a'), doc('b')],
      answers: ['invalid', indexed, 'invalid'],
    });
    const pass = await indexer.background({ intervalMs: 100, batchSize: 10 }).runOnce();
    expect(steps.slice(2)).toEqual([
      'index t1: a b',
      'index t1: a',
      'mark indexed a@1:mini',
      'index t1: b',
      'record error b: document_parsing_exception',
    ]);
    expect(pass).toMatchObject({ done: 2, failed: false });
  });

  test('when the similarity service is away, then nothing is marked or recorded and the next pass sends the documents again', async () => {
    const { steps, indexer, queue } = fakes({ pending: [doc('a')], answers: ['unavailable'] });
    const background = indexer.background({ intervalMs: 100, batchSize: 10 });
    expect(await background.runOnce()).toEqual({ done: 0, failed: true, more: false });
    expect(queue().map((d) => d.id)).toEqual(['a']);
    expect(await background.runOnce()).toEqual({ done: 1, failed: false, more: false });
    expect(steps.filter((s) => !s.startsWith('read'))).toEqual(['index t1: a', 'index t1: a', 'mark indexed a@1:mini']);
  });

  test('when a deletion fails, then it stays for the next pass and the pending documents are still sent', async () => {
    const { steps, indexer } = fakes({
      deletions: [{ id: 'gone', tenant_id: 't1', version: 2 }],
      pending: [doc('a')],
      deleteAnswers: ['unavailable'],
    });
    const pass = await indexer.background({ intervalMs: 100, batchSize: 10 }).runOnce();
    expect(steps).toEqual([
      'read deletions 10',
      'delete t1: gone@2',
      'read pending 10',
      'index t1: a',
      'mark indexed a@1:mini',
    ]);
    expect(pass).toEqual({ done: 1, failed: true, more: false });
  });

  test('when the queue holds several calls, then one read, and after a call that did not get through no further call starts', async () => {
    const { steps, indexer } = fakes({
      pending: ['a', 'b', 'c', 'd', 'e'].map((id) => doc(id)),
      answers: [indexed, 'unavailable'],
    });
    const pass = await indexer.background({ intervalMs: 100, batchSize: 2, callsPerPass: 3 }).runOnce();
    expect(steps).toEqual([
      'read deletions 2',
      'read pending 6',
      'index t1: a b',
      'mark indexed a@1:mini b@1:mini',
      'index t1: c d',
    ]);
    expect(pass).toEqual({ done: 2, failed: true, more: false });
  });

  test('when a read comes back full, then the pass says more is waiting', async () => {
    const { indexer } = fakes({ pending: [doc('a'), doc('b')] });
    expect(await indexer.background({ intervalMs: 100, batchSize: 2 }).runOnce()).toMatchObject({ more: true });
  });

  test('when the store is away, then a pass reads nothing and is no failure', async () => {
    const { steps, indexer } = fakes({ pending: [doc('a')] });
    const pass = await indexer.background({ intervalMs: 100, batchSize: 2, storeUp: () => false }).runOnce();
    expect([steps, pass]).toEqual([[], { done: 0 }]);
  });
});

describe("a write's own indexing", () => {
  afterEach(() => jest.useRealTimers());

  test('when it fails, then writes stop waiting for the index until a background call gets through', async () => {
    const { steps, indexer } = fakes({ pending: [doc('queued')], answers: ['unavailable'] });
    expect((await indexer.indexNow([doc('a')])).indexed.size).toBe(0);
    expect((await indexer.indexNow([doc('b')])).indexed.size).toBe(0);
    await indexer.removeNow([{ id: 'c', tenant_id: 't1', version: 2 }]);
    expect(steps).toEqual(['index t1: a']);
    await indexer.background({ intervalMs: 100, batchSize: 10 }).runOnce();
    const after = await indexer.indexNow([doc('d')]);
    expect([...after.indexed]).toEqual([['d', 'mini']]);
    expect(steps.slice(-4)).toEqual([
      'index t1: queued',
      'mark indexed queued@1:mini',
      'index t1: d',
      'mark indexed d@1:mini',
    ]);
  });

  test(`when it fails, then after ${WRITES_PAUSE_MS / 1000} s a write tries again`, async () => {
    jest.useFakeTimers({ now: 0 });
    const { steps, indexer } = fakes({ answers: ['unavailable'] });
    await indexer.indexNow([doc('a')]);
    jest.setSystemTime(WRITES_PAUSE_MS - 1);
    await indexer.indexNow([doc('b')]);
    jest.setSystemTime(WRITES_PAUSE_MS);
    await indexer.indexNow([doc('c')]);
    expect(steps).toEqual(['index t1: a', 'index t1: c', 'mark indexed c@1:mini']);
  });
});

describe('a reindex page', () => {
  test('when written into a target index, then one call across tenants, refusals recorded, the rest by markReindexed only', async () => {
    const { steps, indexer } = fakes({
      reindexed: true,
      answers: [
        (docs) => [...indexed(docs.slice(0, 1)), { id: 'b', status: 'failed', embeddings: '', error: 'too long' }],
      ],
    });
    const outcome = await indexer.indexInto('entries-2', [doc('a'), doc('b', 't2')]);
    expect(steps).toEqual(['index *: a b into entries-2', 'record error b: too long', 'mark reindexed a']);
    expect([[...outcome.indexed.keys()], [...outcome.refused]]).toEqual([['a'], ['b']]);
  });

  test('when the kind keeps nothing of a reindex, then nothing is marked; when the call fails, then the page throws', async () => {
    const { steps, indexer } = fakes({ answers: [indexed, 'unavailable'] });
    await indexer.indexInto('products-2', [doc('a')]);
    await expect(indexer.indexInto('products-2', [doc('b')])).rejects.toThrow(/unavailable/);
    expect(steps).toEqual(['index *: a into products-2', 'index *: b into products-2']);
  });
});
