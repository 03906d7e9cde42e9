import pino from 'pino';
import { type CatalogDeps, indexNow } from '../src/domain/products';
import { startIndexer } from '../src/domain/indexer';
import { storedProduct } from './support';

/**
 * Who waits for the search index decides whether an IndexProducts call refreshes it: a write
 * answers only once its product is searchable; the background indexer, whom nobody waits on,
 * leaves it to the index's periodic refresh (a forced refresh per call doubled Elasticsearch's
 * work during a cold ingest) until its queue is empty.
 */
function depsRecording(pending: ReturnType<typeof storedProduct>[], perRead = Infinity) {
  /** `others`: calls still unanswered when this one was sent. */
  const calls: { method: string; searchable_later: unknown; ids: string[]; others: number }[] = [];
  let queue = [...pending];
  let inFlight = 0;
  const deps = {
    logger: pino({ level: 'silent' }),
    indexOnWriteMs: 1000,
    products: {
      countIndexErrors: async () => 0,
      pendingDeletions: async () => [],
      pendingIndex: async (limit: number) => {
        const out = queue.slice(0, Math.min(limit, perRead));
        queue = queue.slice(out.length);
        return out;
      },
      markIndexedMany: async () => undefined,
    },
    similarity: {
      call: async (method: string, req: { searchable_later?: boolean; products: { id: string }[] }) => {
        calls.push({
          method,
          searchable_later: req.searchable_later,
          ids: req.products.map((p) => p.id),
          others: inFlight,
        });
        inFlight++;
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight--;
        return {
          model: 'm',
          results: req.products.map((p) => ({ id: p.id, status: 'indexed', embeddings: 'computed', error: '' })),
        };
      },
    },
  } as unknown as CatalogDeps;
  return { deps, calls };
}

describe('index refreshes by who waits', () => {
  test('when a write indexes its product inline, then the call asks for it to be searchable on return', async () => {
    const { deps, calls } = depsRecording([]);
    const outcome = await indexNow(deps, [storedProduct({ id: 'p1', needs_index: true })], { inline: true });
    expect([...outcome.indexed]).toEqual(['p1']);
    expect(calls).toEqual([{ method: 'IndexProducts', searchable_later: false, ids: ['p1'], others: 0 }]);
  });

  test(
    'when the background indexer indexes a queue longer than one pass, then calls of full passes leave ' +
      'searchability to the periodic refresh, and the last call of the pass that empties the queue ' +
      'is sent after the others have answered and refreshes',
    async () => {
      const ids = Array.from({ length: 13 }, (_, i) => `p${i}`);
      const { deps, calls } = depsRecording(
        ids.map((id) => storedProduct({ id, needs_index: true })),
        10,
      );
      // batches of 2, 5 per pass: a full pass of 10 (more to come), then a pass of 3 that empties the queue
      const indexer = startIndexer(deps, 60_000, 2);
      try {
        await indexer.runOnce();
        await indexer.runOnce();
      } finally {
        await indexer.stop();
      }
      expect(calls.map((c) => [c.ids.join(','), c.searchable_later, c.others])).toEqual([
        ['p0,p1', true, 0],
        ['p2,p3', true, 1],
        ['p4,p5', true, 1],
        ['p6,p7', true, 1],
        ['p8,p9', true, 1],
        ['p10,p11', true, 0],
        ['p12', false, 0],
      ]);
    },
  );
});
