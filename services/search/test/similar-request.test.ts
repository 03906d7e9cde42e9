import { similarAnchorsOf, similarSearchOf } from '../src/similar-request';

describe('similarSearchOf (the one rule both roads of a similar search follow)', () => {
  test('when the request leaves everything open, then the published defaults are filled in and optional fields are left out', () => {
    const anchors = similarAnchorsOf({ anchor_product_ids: ['a'] });
    expect(similarSearchOf({ anchor_product_ids: ['a'] }, anchors, undefined)).toEqual({
      anchor_product_ids: ['a'],
      anchor_weights: [],
      vector_field: 'description',
      weights: { description: 1, properties: 1, attributes: 1 },
      limit: 8,
      exclude_product_ids: ['a'],
      exclude_parents: false,
      collapse_variants: false,
      explain: false,
    });
  });

  test("when the tenant's settings and the request name things, then the request wins over the settings, and each is passed on", () => {
    const req = {
      anchor_product_ids: ['a', 'b', 'a'],
      anchor_weights: [2, 1, 5],
      limit: 3,
      language: 'de',
      min_score: 0.25,
      exclude_product_ids: ['x', 'b'],
      collapse_variants: true,
      explain: true,
      settings: {
        default_vector_field: 'properties',
        hybrid_weights: { description: 0.5, attributes: 0 },
        variant_strategy: 'children_only',
      },
    };
    const anchors = similarAnchorsOf(req);
    expect(anchors).toEqual({ anchors: ['a', 'b'], weights: [2, 1] });
    const searched = similarSearchOf(req, anchors, 'site-1');
    expect(searched).toMatchObject({
      vector_field: 'properties',
      weights: { description: 0.5, properties: 1, attributes: 0 },
      limit: 3,
      site_id: 'site-1',
      language: 'de',
      min_score: 0.25,
      exclude_product_ids: ['a', 'b', 'x'],
      exclude_parents: true,
      collapse_variants: true,
      explain: true,
    });
    expect(similarSearchOf({ ...req, vector_field: 'hybrid' }, anchors, undefined).vector_field).toBe('hybrid');
  });

  test('when anchors the catalog does not have are left out, then their weights go with them', () => {
    const req = { anchor_product_ids: ['a', 'gone', 'b'], anchor_weights: [1, 7, 3] };
    expect(similarAnchorsOf(req, (id) => id !== 'gone')).toEqual({ anchors: ['a', 'b'], weights: [1, 3] });
  });
});
