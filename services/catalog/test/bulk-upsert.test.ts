import { BULK_LIMIT } from '@kb/rules';
import type { ProductsRepo } from '../src/data-access/products-repo';
import type { Product, SiteView } from '../src/domain/types';
import { bulkUpsertProducts, type CatalogDeps } from '../src/domain/products';
import { keysNamedBy, planBatch, writeBatch } from '../src/domain/products/write-batch';
import { callerWith, storedProduct } from './support';

const now = new Date('2026-03-01T00:00:00Z');
const site = { id: 's1', tenant_id: 't1' } as SiteView;
const item = (value: Record<string, unknown>) => ({ value: { title: 'T', language: 'de', ...value } });

/** An in-memory products repo: upsertMany creates every planned product, unless its key is in `racing`. */
function fakeProducts(stored: Product[], racing: string[] = []) {
  const calls: string[] = [];
  let n = 0;
  const make = (key: string, set: object): Product => storedProduct({ ...set, id: `id-${++n}`, upsert_key: key });
  const repo = {
    findByKeys: async (_t: string, _s: string, keys: string[]) => stored.filter((d) => keys.includes(d.upsert_key)),
    upsertMany: async (_t: string, _s: string, plans: { key: string; set: object }[]) => {
      calls.push(`upsertMany:${plans.map((p) => p.key).join(',')}`);
      return plans.map((p) => (racing.includes(p.key) ? undefined : { doc: make(p.key, p.set), created: true }));
    },
    touch: async (_t: string, ids: string[]) => void calls.push(`touch:${ids.join(',')}`),
    adoptChildrenOf: async () => [],
    findByIds: async () => [],
    existingIds: async () => [],
    findByKey: async () => null,
    upsert: async (_t: string, _s: string, key: string, _id: string, set: object) => {
      calls.push(`upsert:${key}`);
      return { doc: make(key, set), created: false };
    },
  };
  return { repo: repo as unknown as ProductsRepo, calls };
}

describe('bulk upsert', () => {
  test('when items name products and parents, then one look-up covers every distinct key', () => {
    expect(
      keysNamedBy([item({ external_id: 'a', parent_external_id: 'p' }), item({ external_id: 'a' }), { issues: [] }]),
    ).toEqual(['a', 'p']);
  });

  test('when an item is invalid, then only it gets an error result and the others are planned', () => {
    const batch = planBatch(
      [item({ external_id: 'a' }), { value: { language: 'de' } }, item({ external_id: 'b' })],
      new Map(),
      'api',
      now,
    );
    expect(batch.results[1]).toEqual({
      index: 1,
      status: 'error',
      errors: [expect.objectContaining({ loc: [1, 'title'], type: 'missing' })],
    });
    expect(batch.planned.map((p) => p.i)).toEqual([0, 2]);
  });

  test('when an item could not be decoded, then its decode issues are its result', () => {
    const issues = [{ loc: [0], msg: 'Invalid JSON', type: 'json_invalid' }];
    expect(planBatch([{ issues }], new Map(), 'api', now).results[0]).toEqual({
      index: 0,
      status: 'error',
      errors: issues,
    });
  });

  test('when an external id repeats in the batch, then the repeat is written on its own afterwards', () => {
    const batch = planBatch(
      [item({ external_id: 'a' }), item({ external_id: 'a', brand: 'B' })],
      new Map(),
      'api',
      now,
    );
    expect(batch.planned.map((p) => p.i)).toEqual([0]);
    expect(batch.repeated).toEqual([1]);
  });

  test('when an item matches its stored product, then it is planned as unchanged', () => {
    const stored = storedProduct();
    const batch = planBatch([item({ title: 'Chair', external_id: 'ext-1' })], new Map([['ext-1', stored]]), 'api', now);
    expect(batch.unchanged).toEqual([{ i: 0, doc: stored }]);
  });

  test('when a batch is written, then each item has one result in item order with index, status and id', async () => {
    const { repo, calls } = fakeProducts([storedProduct()]);
    const deps = { products: repo } as CatalogDeps;
    const items = [
      item({ external_id: 'new' }),
      { value: {} },
      item({ title: 'Chair', external_id: 'ext-1' }),
      item({ external_id: 'new', brand: 'B' }),
    ];
    const { results } = await writeBatch(deps, 't1', site, items, 'api');
    expect(results.map((r) => [r.index, r.status])).toEqual([
      [0, 'created'],
      [1, 'error'],
      [2, 'unchanged'],
      [3, 'updated'],
    ]);
    expect(results[2]?.id).toBe(storedProduct().id);
    expect(Object.keys(results[0] ?? {})).toEqual(['index', 'status', 'id']);
    expect(calls).toEqual(['upsertMany:new', `touch:${storedProduct().id}`, 'upsert:new']);
  });

  test('when a concurrent insert takes a key during the bulk write, then that item is retried on its own', async () => {
    const { repo, calls } = fakeProducts([], ['b']);
    const { results } = await writeBatch(
      { products: repo } as CatalogDeps,
      't1',
      site,
      [item({ external_id: 'a' }), item({ external_id: 'b' })],
      'api',
    );
    expect(results.map((r) => r.status)).toEqual(['created', 'updated']);
    expect(calls).toContain('upsert:b');
  });

  test('when a bulk has more than BULK_LIMIT items, then it is refused before the site is looked up', async () => {
    const deps = { sites: {}, products: {} } as unknown as CatalogDeps;
    const items = Array.from({ length: BULK_LIMIT + 1 }, () => item({}));
    await expect(bulkUpsertProducts(deps, callerWith('knowledge:write'), 's1', items)).rejects.toMatchObject({
      kind: 'invalid',
      issues: [expect.objectContaining({ loc: ['body', 'products'], type: 'too_long' })],
    });
  });

  test('when the caller has only knowledge:read, then a bulk is forbidden', async () => {
    await expect(bulkUpsertProducts({} as CatalogDeps, callerWith('knowledge:read'), 's1', [])).rejects.toMatchObject({
      kind: 'forbidden',
    });
  });
});
