/**
 * The rule that says which index serves a query (query-shapes.ts), and how a filter as sent is
 * read: the checks of every service's queries (services/<svc>/test/query-indexes.test.ts and
 * test/operations/query-indexes.test.ts) rest on these.
 */
import {
  matchesShape,
  queryIndexProblems,
  shapeOfFilter,
  whyNotServed,
  type DeclaredIndex,
  type QueryShape,
} from '../src/query-shapes';

const index = (key: Record<string, 1 | -1>, extra: Partial<DeclaredIndex> = {}): DeclaredIndex => ({ key, ...extra });
const shape = (s: Omit<QueryShape, 'collection' | 'query'>): QueryShape => ({ collection: 'c', query: 'q', ...s });

describe('which index serves a query', () => {
  test('when the equality fields are the leading keys in any order, then the index serves it', () => {
    expect(whyNotServed(shape({ eq: ['site_id', 'tenant_id'] }), index({ tenant_id: 1, site_id: 1, x: 1 }))).toBeNull();
  });

  test('when an equality field is not among the leading keys, then the index does not serve it', () => {
    const why = whyNotServed(shape({ eq: ['tenant_id', 'parent_product_id'] }), index({ tenant_id: 1, site_id: 1 }));
    expect(why).toMatch(/parent_product_id/);
  });

  test('when the sort follows the equality keys, or is all reversed, then the index serves it; mixed directions do not', () => {
    const i = index({ tenant_id: 1, updated_at: -1, _id: 1 });
    expect(whyNotServed(shape({ eq: ['tenant_id'], sort: { updated_at: -1, _id: 1 } }), i)).toBeNull();
    expect(whyNotServed(shape({ eq: ['tenant_id'], sort: { updated_at: 1, _id: -1 } }), i)).toBeNull();
    expect(whyNotServed(shape({ eq: ['tenant_id'], sort: { updated_at: -1, _id: -1 } }), i)).toMatch(/sort/);
  });

  test('when a sort skips a key, then only a declared in-memory sort is accepted', () => {
    const i = index({ tenant_id: 1, parent_id: 1, sort_order: 1 });
    expect(whyNotServed(shape({ eq: ['tenant_id'], sort: { sort_order: 1 } }), i)).toMatch(/sort/);
    expect(whyNotServed(shape({ eq: ['tenant_id'], sort: { sort_order: 1 }, sortInMemory: 'few' }), i)).toBeNull();
  });

  test('when the range field comes after the equality and sort keys, then the index serves it; before them it does not', () => {
    expect(
      whyNotServed(shape({ eq: ['needs_index'], range: ['updated_at'] }), index({ needs_index: 1, updated_at: 1 })),
    ).toBeNull();
    expect(whyNotServed(shape({ range: ['updated_at'] }), index({ needs_index: 1, updated_at: 1 }))).toMatch(
      /bounds|range/,
    );
    expect(whyNotServed(shape({ range: ['_id'], sort: { _id: 1 } }), index({ _id: 1 }))).toBeNull();
  });

  test('when a partial index holds only documents with a field, then a $exists query on it is served, others are not', () => {
    const refused = index(
      { 'index_error.at': -1 },
      { partialFilterExpression: { 'index_error.at': { $exists: true } } },
    );
    expect(whyNotServed(shape({ exists: ['index_error.at'] }), refused)).toBeNull();
    expect(whyNotServed(shape({ exists: ['index_error.at'], sort: { 'index_error.at': -1 } }), refused)).toBeNull();
    expect(whyNotServed(shape({ eq: ['tenant_id'] }), refused)).toMatch(/partial/);
  });

  test('when a unique index is fully matched by equalities, then one document is found and its order needs no sort', () => {
    expect(whyNotServed(shape({ eq: ['_id'], sort: { x: 1 } }), index({ _id: 1 }, { unique: true }))).toBeNull();
  });
});

describe('a filter as sent', () => {
  test('when a filter mixes equality, $in, ranges, $exists and $or, then each field is read by its kind', () => {
    const s = shapeOfFilter(
      {
        tenant_id: 't',
        _id: { $in: ['a'] },
        updated_at: { $lt: new Date() },
        'index_error.at': { $exists: true },
        type: { $ne: 'x' },
        $and: [{ category_id: 'c' }, { $or: [{ visibility: 'public' }, { owner_key: 'k' }] }],
      },
      { updated_at: -1, _id: 1 },
    );
    expect(s).toEqual({
      eq: ['_id', 'category_id', 'tenant_id'],
      range: ['updated_at'],
      exists: ['index_error.at'],
      other: ['owner_key', 'type', 'visibility'],
      sort: { updated_at: -1, _id: 1 },
    });
  });

  test('when a filter names a field its declared shape does not list, then it does not match', () => {
    const declared = shape({ eq: ['tenant_id', 'site_id'], residual: ['version'] });
    expect(matchesShape(shapeOfFilter({ tenant_id: 't', site_id: 's', version: 2 }), declared)).toBe(true);
    expect(matchesShape(shapeOfFilter({ tenant_id: 't', site_id: 's', parent_product_id: 'p' }), declared)).toBe(false);
    expect(matchesShape(shapeOfFilter({ tenant_id: 't' }), declared)).toBe(false);
    expect(matchesShape(shapeOfFilter({ tenant_id: 't', site_id: 's' }, { _id: 1 }), declared)).toBe(false);
  });

  test('when the driver sends a sort as a Map, then its order is kept', () => {
    const sort = new Map<string, unknown>([
      ['updated_at', -1],
      ['_id', 1],
    ]);
    expect(shapeOfFilter({}, sort).sort).toEqual({ updated_at: -1, _id: 1 });
  });

  test('when a prefix regex is sent, then it reads as a range of its field', () => {
    expect(shapeOfFilter({ _id: { $regex: '^ab' } }).range).toEqual(['_id']);
  });
});

describe('the problems of a set of queries and indexes', () => {
  const collections = [
    {
      name: 'c',
      tenantScoped: true,
      indexes: [index({ _id: 1 }, { unique: true }), index({ tenant_id: 1, a: 1 }), index({ b: 1 })],
    },
  ];

  test('when a query has no index, an index serves none, or a tenant index leads elsewhere, then each is named', () => {
    const problems = queryIndexProblems(
      [shape({ eq: ['tenant_id', 'a'] }), shape({ eq: ['tenant_id', 'z'] })],
      collections,
      [],
    );
    expect(problems).toEqual([
      expect.stringMatching(/^c: no index serves "q"/),
      'c.b_1 serves no declared query',
      'c.b_1 does not lead with tenant_id and is not listed as cross-tenant',
    ]);
  });
});
