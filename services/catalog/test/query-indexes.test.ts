/**
 * Every query of the catalog's repositories has its index: each shape a repository declares
 * (PRODUCT_QUERIES, SITE_QUERIES) is served by an index declared on its schema by the
 * leading-prefix rule (equality keys, then the sort, then one range; @kb/mongo query-shapes.ts),
 * no declared index is left serving nothing, and every index of a tenant's collection leads with
 * tenant_id unless it is one of the listed cross-tenant ones. No backend: the models are
 * registered on a connection that is never opened. That the declared shapes are the queries
 * really sent is checked against the real server by test/operations/query-indexes.test.ts.
 */
import mongoose from 'mongoose';
import { queryIndexProblems, servingIndex } from '@kb/mongo';
import { CATALOG_CROSS_TENANT_INDEXES, CATALOG_QUERIES, catalogCollections } from '../src/data-access/queries';

describe('the catalog queries and indexes', () => {
  const connection = mongoose.createConnection();
  afterAll(() => connection.close());

  test('when the repositories declare their queries, then each is served by a declared index and each index serves one', () => {
    expect(queryIndexProblems(CATALOG_QUERIES, catalogCollections(connection), CATALOG_CROSS_TENANT_INDEXES)).toEqual(
      [],
    );
  });

  test("when a product is deleted, then its children are found by the index on their parent's id", () => {
    const products = catalogCollections(connection).find((c) => c.name === 'products');
    const shape = CATALOG_QUERIES.find((q) => q.query === 'finishDelete: its children');
    expect(shape && servingIndex(shape, products?.indexes ?? [])?.key).toEqual({
      tenant_id: 1,
      site_id: 1,
      parent_product_id: 1,
    });
  });
});
