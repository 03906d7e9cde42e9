import pino from 'pino';
import type { CatalogDeps } from '../src/domain/products';
import { indexNow } from '../src/domain/products';
import { startIndexer } from '../src/domain/indexer';
import { storedProduct } from './support';

/**
 * Who waits for the search index decides whether an IndexProducts call refreshes it: a write
 * answers only once its product is searchable; the background indexer, whom nobody waits on,
 * leaves it to the index's periodic refresh (a forced refresh per call doubled Elasticsearch's
 * work during a cold ingest).
 */
function depsRecording(pending: ReturnType<typeof storedProduct>[]) {
  const calls: { method: string; searchable_later: unknown; ids: string[] }[] = [];
  let queue = [...pending];
  const deps = {
    logger: pino({ level: 'silent' }),
    indexOnWriteMs: 1000,
    products: {
      countIndexErrors: async () => 0,
      pendingDeletions: async () => [],
      pendingIndex: async () => {
        const out = queue;
        queue = [];
        return out;
      },
      markIndexedMany: async () => undefined,
    },
    similarity: {
      call: async (method: string, req: { searchable_later?: boolean; products: { id: string }[] }) => {
        calls.push({ method, searchable_later: req.searchable_later, ids: req.products.map((p) => p.id) });
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
    expect(calls).toEqual([{ method: 'IndexProducts', searchable_later: false, ids: ['p1'] }]);
  });

  test('when the background indexer indexes the queue, then its calls leave searchability to the periodic refresh', async () => {
    const { deps, calls } = depsRecording([
      storedProduct({ id: 'p1', needs_index: true }),
      storedProduct({ id: 'p2', needs_index: true }),
    ]);
    const indexer = startIndexer(deps, 60_000, 100);
    try {
      await indexer.runOnce();
    } finally {
      await indexer.stop();
    }
    expect(calls).toEqual([{ method: 'IndexProducts', searchable_later: true, ids: ['p1', 'p2'] }]);
  });
});
