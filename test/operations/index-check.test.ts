/**
 * `npm start`'s check that the search index has not lost what MongoDB holds (@kb/devstack's
 * index-check.ts): a kind whose documents are in MongoDB while its index is empty or missing is
 * named for a rebuild; one whose index holds documents, or with nothing in MongoDB, is not.
 */
import mongoose from 'mongoose';
import { emptyIndices } from '@kb/devstack';
import { uniqueId } from '../support/stack';
import { elasticsearchNode } from '../support/elasticsearch-node';

const name = uniqueId('kbcheck');
const mongoUri = (() => {
  const url = new URL(process.env.MONGODB_URI as string);
  url.pathname = `/${name}`;
  return url.toString();
})();
const es = (path: string, body?: unknown) =>
  fetch(`${elasticsearchNode()}${path}`, {
    method: body === undefined ? 'DELETE' : 'PUT',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
let db: mongoose.Connection;

beforeAll(async () => {
  db = await mongoose.createConnection(mongoUri).asPromise();
});

afterAll(async () => {
  await es(`/${name}-entries-x`);
  await db.dropDatabase();
  await db.close();
});

test('when MongoDB holds entries and products and no index any, then both are named; the entries indexed, the products alone', async () => {
  expect(await emptyIndices(mongoUri, elasticsearchNode(), name)).toEqual([]); // nothing stored: nothing to rebuild
  await db.collection('knowledge_entries').insertOne({ _id: 'e1' as never, tenant_id: 't' });
  await db.collection('products').insertOne({ _id: 'p1' as never, tenant_id: 't' });
  expect(await emptyIndices(mongoUri, elasticsearchNode(), name)).toEqual(['entries', 'products']);
  expect((await es(`/${name}-entries-x`, { settings: { number_of_replicas: 0 } })).ok).toBe(true);
  expect(await emptyIndices(mongoUri, elasticsearchNode(), name)).toEqual(['entries', 'products']); // empty index
  await fetch(`${elasticsearchNode()}/${name}-entries-x/_doc/e1?refresh=true`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ tenant_id: 't' }),
  });
  expect(await emptyIndices(mongoUri, elasticsearchNode(), name)).toEqual(['products']);
});
