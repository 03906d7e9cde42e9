/**
 * A product delete writes its tombstone first and deletes the product after: a crash between the
 * two leaves a tombstone beside a product still stored, never a product gone from MongoDB that
 * the search index keeps. The background indexer finishes such a delete before it applies the
 * tombstone, and drops a tombstone whose product was written again after it.
 */
import mongoose from 'mongoose';
import { startStack, uniqueId, type Stack } from '../support/stack';
import { elasticsearchNode } from '../support/elasticsearch-node';

let stack: Stack;
let conn: mongoose.Connection;
const tenant = uniqueId('deletes');
let token: string;

beforeAll(async () => {
  stack = await startStack();
  conn = await mongoose.createConnection(stack.mongoUri).asPromise();
  token = await stack.tenantWithToken(tenant, 'Admin');
  expect(
    (
      await stack.request(tenant, '/api/knowledge/sites', {
        method: 'POST',
        token,
        body: { slug: 'shop', name: 'Shop' },
      })
    ).status,
  ).toBe(201);
}, 60_000);
afterAll(async () => {
  await conn?.close();
  await stack?.stop();
});

async function product(externalId: string): Promise<{ id: string; version: number }> {
  const res = await stack.request(tenant, '/api/knowledge/products?site_id=shop', {
    method: 'POST',
    token,
    body: {
      external_id: externalId,
      title: `Lantern ${externalId}`,
      language: 'en',
      description: 'A camping lantern.',
    },
  });
  expect(res.status).toBe(201);
  const stored = await conn.collection('products').findOne({ _id: res.json.id } as never);
  return { id: res.json.id as string, version: stored!.version as number };
}

/** Whether the products index holds the product (read straight from Elasticsearch). */
async function inIndex(id: string): Promise<boolean> {
  const url = `${elasticsearchNode()}/${stack.indexPrefix}-products-*/_search`;
  await fetch(`${elasticsearchNode()}/${stack.indexPrefix}-products-*/_refresh`, { method: 'POST' });
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: { ids: { values: [id] } } }),
  });
  return ((await res.json()) as { hits: { total: { value: number } } }).hits.total.value === 1;
}

const tombstone = (id: string, version: number) =>
  conn
    .collection('product_deletions')
    .insertOne({ _id: id, tenant_id: tenant, version, deleted_at: new Date() } as never);

describe('a product delete and its tombstone', () => {
  test('when a crash left the tombstone but not the delete, then the indexer finishes the delete and unindexes it', async () => {
    const p = await product('crashed');
    expect(await inIndex(p.id)).toBe(true);
    await tombstone(p.id, p.version + 1); // the delete's first write; the process died before the second
    for (let i = 0; i < 2; i++) await stack.indexPending(); // a pass already running joins, so two
    expect((await stack.request(tenant, `/api/knowledge/products/${p.id}`, { token })).status).toBe(404);
    expect(await conn.collection('product_deletions').countDocuments({ _id: p.id } as never)).toBe(0);
    expect(await inIndex(p.id)).toBe(false);
  });

  test('when the product was written again after its tombstone, then the tombstone is dropped and it stays indexed', async () => {
    const p = await product('rewritten');
    await tombstone(p.id, p.version); // a delete of an older version, overtaken by a write
    for (let i = 0; i < 2; i++) await stack.indexPending(); // a pass already running joins, so two
    expect((await stack.request(tenant, `/api/knowledge/products/${p.id}`, { token })).status).toBe(200);
    expect(await conn.collection('product_deletions').countDocuments({ _id: p.id } as never)).toBe(0);
    expect(await inIndex(p.id)).toBe(true);
  });
});
