import type { catalogV1 } from '@kb/platform';
import type { Product } from '../src/domain/types';
import type { CatalogDeps } from '../src/domain/products';
import { similarProducts } from '../src/domain/search';
import { callerWith, storedProduct } from './support';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/**
 * The catalog asks the similarity service while MongoDB says which anchors it has: these fakes
 * record every SimilarProducts request and answer with the given hits.
 */
function deps(catalog: Product[], hits: string[], sites: Record<string, string> = {}) {
  const asked: string[][] = [];
  const reads: string[][] = [];
  const d = {
    products: {
      existingIds: async (tenant: string, ids: string[]) =>
        catalog.filter((p) => p.tenant_id === tenant && ids.includes(p.id)).map((p) => p.id),
      findByIds: async (tenant: string, ids: string[]) => {
        reads.push(ids);
        return catalog.filter((p) => p.tenant_id === tenant && ids.includes(p.id));
      },
    },
    sites: { find: async (_t: string, ref: string) => (sites[ref] ? { id: sites[ref], tenant_id: 't1' } : null) },
    similarity: {
      call: async (_m: string, req: { anchor_product_ids: string[] }) => {
        asked.push(req.anchor_product_ids);
        return {
          anchor_product_ids: req.anchor_product_ids,
          vector_field: 'description',
          hits: hits.map((h, i) => ({ id: h, score: 1 - i / 10, score_sources: {}, explanation_json: '' })),
          filtered_json: '',
        };
      },
    },
  };
  return { deps: d as unknown as CatalogDeps, asked, reads };
}

const request = (over: Partial<catalogV1.SimilarProductsRequest__Output>) =>
  ({
    anchor_product_ids: [],
    anchor_weights: [],
    exclude_product_ids: [],
    limit: 10,
    collapse_variants: false,
    explain: false,
    ...over,
  }) as unknown as catalogV1.SimilarProductsRequest__Output;

const products = [1, 2, 3, 4].map((n) => storedProduct({ id: id(n) }));

describe('similar products in the catalog', () => {
  test('when every anchor is in the catalog, then the service is asked once, and anchors and hits are read in one query', async () => {
    const { deps: d, asked, reads } = deps(products, [id(3), id(4)]);
    const res = await similarProducts(d, callerWith('knowledge:read'), request({ anchor_product_ids: [id(1), id(2)] }));
    expect(asked).toEqual([[id(1), id(2)]]);
    expect(reads).toEqual([[id(1), id(2), id(3), id(4)]]);
    expect(res.hits.map((h) => h.doc.id)).toEqual([id(3), id(4)]);
  });

  test('when an anchor is not in the catalog, then the first answer is dropped and the service asked again without it', async () => {
    const other = storedProduct({ id: id(9), tenant_id: 't2' });
    const { deps: d, asked } = deps([...products, other], [id(3)]);
    const res = await similarProducts(
      d,
      callerWith('knowledge:read'),
      request({ anchor_product_ids: [id(9), id(1), id(8)] }),
    );
    expect(asked).toEqual([[id(9), id(1), id(8)], [id(1)]]);
    expect(res.anchor_product_ids).toEqual([id(1)]);
  });

  test('when no anchor is in the catalog, then 404 whatever the similarity service answered', async () => {
    const { deps: d } = deps(products, [id(3)]);
    await expect(
      similarProducts(d, callerWith('knowledge:read'), request({ anchor_product_ids: [id(7)] })),
    ).rejects.toMatchObject({ kind: 'not_found', message: 'None of the anchor products was found' });
    const failing = {
      ...d,
      similarity: { call: async () => Promise.reject(new Error('No anchor product has vectors')) },
    } as unknown as CatalogDeps;
    await expect(
      similarProducts(failing, callerWith('knowledge:read'), request({ anchor_product_ids: [id(7)] })),
    ).rejects.toMatchObject({ message: 'None of the anchor products was found' });
    await expect(
      similarProducts(failing, callerWith('knowledge:read'), request({ anchor_product_ids: [id(1)] })),
    ).rejects.toThrow('No anchor product has vectors');
  });

  test('when neither the anchors nor the site exist, then the anchors are the error answered', async () => {
    const { deps: d } = deps(products, []);
    await expect(
      similarProducts(d, callerWith('knowledge:read'), request({ anchor_product_ids: [id(7)], site_id: 'nowhere' })),
    ).rejects.toMatchObject({ message: 'None of the anchor products was found' });
    await expect(
      similarProducts(d, callerWith('knowledge:read'), request({ anchor_product_ids: [id(1)], site_id: 'nowhere' })),
    ).rejects.toMatchObject({ kind: 'not_found', message: expect.stringMatching(/site/i) });
  });

  test('when a hit is no longer in the catalog, then it is dropped', async () => {
    const { deps: d } = deps(products, [id(3), id(5), id(4)]);
    const res = await similarProducts(d, callerWith('knowledge:read'), request({ anchor_product_ids: [id(1)] }));
    expect(res.hits.map((h) => h.doc.id)).toEqual([id(3), id(4)]);
  });
});
