/**
 * The products' side of the document indexer (src/domain/products/indexing.ts): a reindex page
 * is written into the target in one call across tenants and nothing is marked on the products
 * (the alias still points at the old index until the swap); a refused product is recorded.
 */
import pino from 'pino';
import { type CatalogDeps, indexNow } from '../src/domain/products';
import { storedProduct } from './support';

test('when a reindex page is written, then one IndexProducts call into the target, refusals recorded, nothing marked', async () => {
  const steps: unknown[] = [];
  const deps = {
    logger: pino({ level: 'silent' }),
    indexOnWriteMs: 1000,
    products: {
      markIndexedMany: async () => void steps.push('markIndexedMany'),
      markRefused: async (...args: unknown[]) => {
        steps.push(['markRefused', ...args.slice(0, 4)]);
        return true;
      },
      countIndexErrors: async () => 1,
    },
    similarity: {
      call: async (
        method: string,
        req: { caller: { tenant_id: string }; target_index?: string; products: { id: string }[] },
      ) => {
        steps.push([method, req.caller.tenant_id, req.target_index, req.products.map((p) => p.id)]);
        return {
          model: 'm',
          results: [
            { id: 'p1', status: 'indexed', embeddings: 'computed', error: '' },
            { id: 'p2', status: 'failed', embeddings: '', error: 'too long' },
          ],
        };
      },
    },
  } as unknown as CatalogDeps;
  const outcome = await indexNow(deps, [storedProduct({ id: 'p1' }), storedProduct({ id: 'p2', tenant_id: 't2' })], {
    targetIndex: 'kb-products-2',
  });
  expect(steps).toEqual([
    ['IndexProducts', '', 'kb-products-2', ['p1', 'p2']],
    ['markRefused', 't2', 'p2', 1, 'too long'],
  ]);
  expect([[...outcome.indexed], [...outcome.refused]]).toEqual([['p1'], ['p2']]);
});
