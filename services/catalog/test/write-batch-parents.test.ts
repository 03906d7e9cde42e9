/**
 * A bulk holding a new parent and its children: the children are planned pointing at the id the
 * parent is created with, so no adoption write (a second version of each child) follows.
 */
import type { ProductsRepo } from '../src/data-access/products-repo';
import type { Product, SiteView } from '../src/domain/types';
import type { CatalogDeps } from '../src/domain/products';
import { planBatch, writeBatch } from '../src/domain/products/write-batch';
import { storedProduct } from './support';

const now = new Date('2026-03-01T00:00:00Z');
const item = (value: Record<string, unknown>) => ({ value: { title: 'T', language: 'de', ...value } });
const planned = (batch: ReturnType<typeof planBatch>, key: string) =>
  batch.planned.find((p) => p.plan.externalId === key)!.plan;

describe('planning a bulk with parents and children', () => {
  test('when children come before and after their new parent, then each is planned with the id the parent is created with', () => {
    const batch = planBatch(
      [
        item({ external_id: 'early', parent_external_id: 'fam' }),
        item({ external_id: 'fam', is_parent: true }),
        item({ external_id: 'late', parent_external_id: 'fam' }),
      ],
      new Map(),
      'api',
      now,
    );
    const parentId = planned(batch, 'fam').newId;
    expect(batch.newParents).toEqual(
      new Map([
        ['fam', parentId],
        ['early', planned(batch, 'early').newId],
        ['late', planned(batch, 'late').newId],
      ]),
    );
    expect(planned(batch, 'early').set.parent_product_id).toBe(parentId);
    expect(planned(batch, 'late').set.parent_product_id).toBe(parentId);
    expect(planned(batch, 'fam').set.parent_product_id).toBeNull();
  });

  test('when the parent is stored, a child names itself or the parent is not in the bulk, then it is planned as a lone write', () => {
    const stored = storedProduct({ id: 'p-1', upsert_key: 'old', external_id: 'old' });
    const batch = planBatch(
      [
        item({ external_id: 'a', parent_external_id: 'old' }),
        item({ external_id: 'self', parent_external_id: 'self' }),
        item({ external_id: 'b', parent_external_id: 'elsewhere' }),
      ],
      new Map([['old', stored]]),
      'api',
      now,
    );
    expect(batch.newParents.has('old')).toBe(false);
    expect(planned(batch, 'a').set.parent_product_id).toBe('p-1');
    expect(planned(batch, 'self').set.parent_product_id).toBeNull();
    expect(planned(batch, 'b').set.parent_product_id).toBeNull();
  });
});

describe('writing a bulk with a new parent', () => {
  test('when a concurrent insert of the parent key wins, then its children in the bulk are pointed at the id the parent has', async () => {
    const stored: Product[] = [];
    const adoptions: Map<string, string>[] = [];
    const concurrent = storedProduct({ id: 'concurrent-fam', upsert_key: 'fam', external_id: 'fam' });
    const repo = {
      findByKeys: async (_t: string, _s: string, keys: string[]) => stored.filter((d) => keys.includes(d.upsert_key)),
      upsertMany: async (_t: string, _s: string, plans: { key: string; newId: string; set: object }[]) => {
        stored.push(concurrent); // another writer inserted 'fam' first
        return plans.map((p) =>
          p.key === 'fam'
            ? undefined
            : { doc: storedProduct({ ...p.set, id: p.newId, upsert_key: p.key }), created: true },
        );
      },
      touch: async () => undefined,
      adoptChildrenOf: async (_t: string, _s: string, parents: Map<string, string>) => {
        adoptions.push(parents);
        return [];
      },
      findByIds: async () => [],
      findByKey: async (_t: string, _s: string, key: string) => stored.find((d) => d.upsert_key === key) ?? null,
      upsert: async (_t: string, _s: string, key: string, _id: string, set: object) => ({
        doc: storedProduct({ ...set, id: 'concurrent-fam', upsert_key: key }),
        created: false,
      }),
    };
    const site = { id: 's1', tenant_id: 't1' } as SiteView;
    const { results } = await writeBatch(
      { products: repo as unknown as ProductsRepo } as CatalogDeps,
      't1',
      site,
      [item({ external_id: 'kid', parent_external_id: 'fam' }), item({ external_id: 'fam' })],
      'api',
    );
    expect(results.map((r) => r.status)).toEqual(['created', 'updated']);
    expect(adoptions).toHaveLength(1);
    expect(adoptions[0]!.get('fam')).toBe('concurrent-fam');
  });
});
