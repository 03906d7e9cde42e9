/**
 * Every query of the knowledge service's repositories has its index: each shape a repository
 * declares (ENTRY_QUERIES, CATEGORY_QUERIES, …) is served by an index declared on its schema by
 * the leading-prefix rule (equality keys, then the sort, then one range; @kb/mongo
 * query-shapes.ts), no declared index is left serving nothing, and every index of a tenant's
 * collection leads with tenant_id unless it is one of the listed cross-tenant ones. No backend:
 * the models are registered on a connection that is never opened. That the declared shapes are
 * the queries really sent is checked against the real server by test/operations/query-indexes.test.ts.
 */
import mongoose from 'mongoose';
import { queryIndexProblems } from '@kb/mongo';
import { KNOWLEDGE_CROSS_TENANT_INDEXES, KNOWLEDGE_QUERIES, knowledgeCollections } from '../src/data-access/queries';

describe('the knowledge service queries and indexes', () => {
  const connection = mongoose.createConnection();
  afterAll(() => connection.close());

  test('when the repositories declare their queries, then each is served by a declared index and each index serves one', () => {
    expect(
      queryIndexProblems(KNOWLEDGE_QUERIES, knowledgeCollections(connection), KNOWLEDGE_CROSS_TENANT_INDEXES),
    ).toEqual([]);
  });

  test('when refusals are counted, then the partial index of refused entries serves the count without a tenant', () => {
    const entries = knowledgeCollections(connection).find((c) => c.name === 'knowledge_entries');
    expect(entries?.indexes).toContainEqual({
      key: { 'index_error.at': -1 },
      unique: false,
      partialFilterExpression: { 'index_error.at': { $exists: true } },
    });
  });
});
