/**
 * Writes that are acknowledged must reach the index, or say why not.
 *
 * - Values far beyond any keyword term (a 40 KB category, a 40 KB tag) as MongoDB may hold them
 *   (written before the edge bounded them, or by the import): indexed and found.
 * - A document Elasticsearch refuses: recorded on the MongoDB document (`index_error`), not
 *   retried until it changes, listed by `admin index errors`, re-queued by `admin index retry`,
 *   and indexed (error cleared) once a new version is written. Through the API every field now
 *   fits the mappings, so the refusal is made real another way: the embedding cache holds a
 *   zero vector for the document's exact text, which Elasticsearch refuses for a cosine
 *   `dense_vector` ("zero magnitude"), a genuine mapping violation.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import mongoose from 'mongoose';
import { startStack, uniqueId, type Stack } from '../support/stack';
import { elasticsearchNode } from '../support/elasticsearch-node';

const ES = elasticsearchNode();
const INTERVAL_MS = 200;
let stack: Stack;
let db: mongoose.Connection;
let prefix: string;
const tenant = uniqueId('refused');
let admin: string;
let category: string;

beforeAll(async () => {
  stack = await startStack({ env: { INDEXER_INTERVAL_MS: String(INTERVAL_MS) } });
  prefix = new URL(stack.mongoUri).pathname.slice(1);
  db = await mongoose.createConnection(stack.mongoUri).asPromise();
  admin = await stack.tenantWithToken(tenant, 'Admin');
  category = (
    await stack.request(tenant, '/api/knowledge/categories', { method: 'POST', token: admin, body: { name: 'c' } })
  ).json.id;
  expect(
    (
      await stack.request(tenant, '/api/knowledge/sites', {
        method: 'POST',
        token: admin,
        body: { slug: 'shop', name: 'Shop' },
      })
    ).status,
  ).toBe(201);
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await db?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const long = (word: string) => `${word} ${'x'.repeat(40_000)} ${word}-end`;
const doc = (collection: string, id: string) => db.collection(collection).findOne({ _id: id as never });

/** Polls until `check` returns a value (not undefined), or fails after `ms`. */
async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** Puts a zero vector into the embedding cache for `text`: Elasticsearch then refuses any document embedded from it. */
async function poison(text: string): Promise<void> {
  const [cache] = (await (await fetch(`${ES}/_cat/indices/${prefix}-embeddings-*?format=json`)).json()) as {
    index: string;
  }[];
  const id = createHash('sha256').update(text, 'utf8').digest('hex');
  const zeros = Buffer.from(new Float32Array(Number(process.env.EMBEDDING_DIMS)).buffer).toString('base64');
  const res = await fetch(`${ES}/${cache!.index}/_doc/${id}?refresh=true`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      model: process.env.EMBEDDING_MODEL_NAME,
      dims: Number(process.env.EMBEDDING_DIMS),
      embedding: { f32: zeros },
    }),
  });
  expect(res.status).toBeLessThan(300);
}

const indexed = (collection: 'products' | 'knowledge_entries', id: string) =>
  until(`${id} indexed`, async () => {
    const d = await doc(collection, id);
    const done = collection === 'products' ? d?.needs_index === false : d?.index_pending === false;
    return d && done && d.indexed_version === d.version ? d : undefined;
  });

describe('values longer than any keyword term', () => {
  test('when MongoDB holds a product with a 40 KB category, then it is indexed and found by search', async () => {
    const created = await stack.request(tenant, '/api/knowledge/products?site_id=shop', {
      method: 'POST',
      token: admin,
      body: { external_id: 'spade', title: 'Spade', category: 'Garden', language: 'en' },
    });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    // As an import or a write from before the edge bound leaves it: a new version to index.
    await db
      .collection('products')
      .updateOne(
        { _id: id as never },
        { $set: { category: long('gardentools'), needs_index: true }, $inc: { version: 1 } },
      );
    const d = await indexed('products', id);
    expect(d.index_error).toBeUndefined();
    // The background indexer does not refresh: the version is searchable at the index's next
    // refresh (1 s), and the read path answers from the index.
    const found = await until('the new version searchable', async () => {
      const res = await stack.request(tenant, '/api/knowledge/search/products', {
        method: 'POST',
        token: admin,
        body: { query: 'gardentools' },
      });
      return res.json.products?.[0]?.category === long('gardentools') ? res : undefined;
    });
    expect(found.status).toBe(200);
    expect(found.json.products[0]).toMatchObject({ id, category: long('gardentools') });
  });

  test('when MongoDB holds an entry with a 40 KB tag, then it is indexed and found by search', async () => {
    const created = await stack.request(tenant, '/api/knowledge/knowledge-entries', {
      method: 'POST',
      token: admin,
      body: {
        title: 'Compost guide',
        content: 'How to compost kitchen waste',
        category_id: category,
        visibility: 'internal',
        tags: ['garden'],
      },
    });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    await db
      .collection('knowledge_entries')
      .updateOne(
        { _id: id as never },
        { $set: { tags: [long('bigtag'), 'garden'], index_pending: true }, $inc: { version: 1 } },
      );
    const d = await indexed('knowledge_entries', id);
    expect(d.index_error).toBeUndefined();
    // The whole tag is in the index (in _source: too long for a term, it is not a filter value).
    const inIndex = (await (
      await fetch(`${ES}/${prefix}-entries-*/_search`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: { ids: { values: [id] } } }),
      })
    ).json()) as {
      hits: { hits: { _source: { tags: string[] } }[] };
    };
    expect(inIndex.hits.hits[0]?._source.tags).toEqual([long('bigtag'), 'garden']);
    const found = await stack.request(tenant, '/api/knowledge/search/entries', {
      method: 'POST',
      token: admin,
      body: { query: 'compost' },
    });
    expect(found.status).toBe(200);
    expect(found.json.map((h: { entry: { id: string } }) => h.entry.id)).toContain(id);
  });
});

describe('documents the search index refuses', () => {
  const uid = uniqueId('r');
  const entryText = { title: `Refused entry ${uid}`, content: `Body of ${uid}` };
  const productText = { title: `Refused lamp ${uid}`, description: `A lamp ${uid}` };
  let entryId: string;
  let productId: string;
  // The write's own attempt and a background pass can meet on a new version: tried once or
  // twice then, never in a loop (the next test). Later counts are relative to it.
  const attempts = { entry: 0, product: 0 };

  test('when Elasticsearch refuses a new entry, then the write is acknowledged and the entry carries index_error', async () => {
    await poison(`${entryText.title}\n\n${entryText.content}`);
    const created = await stack.request(tenant, '/api/knowledge/knowledge-entries', {
      method: 'POST',
      token: admin,
      body: { ...entryText, category_id: category, visibility: 'internal' },
    });
    expect(created.status).toBe(201);
    entryId = created.json.id;
    const d = await until('the entry index_error', async () =>
      (await doc('knowledge_entries', entryId))?.index_error ? doc('knowledge_entries', entryId) : undefined,
    );
    expect(d).toMatchObject({ index_pending: false, indexed_version: 0, index_error: { version: 1 } });
    await sleep(INTERVAL_MS * 3); // let a background pass that met the write settle
    attempts.entry = (await doc('knowledge_entries', entryId))!.index_error.attempts;
    expect([1, 2]).toContain(attempts.entry);
    expect(d!.index_error.message).toMatch(/^document_parsing_exception: .*zero magnitude/);
  });

  test(
    'when Elasticsearch refuses a product, then the upsert is acknowledged ' +
      '(embeddings pending) and the product carries index_error',
    async () => {
      await poison(`${productText.title}\n${productText.description}`);
      const created = await stack.request(tenant, '/api/knowledge/products?site_id=shop', {
        method: 'POST',
        token: admin,
        body: { external_id: `lamp-${uid}`, ...productText, language: 'en' },
      });
      expect([created.status, created.headers['x-embeddings']]).toEqual([201, 'pending']);
      productId = created.json.id;
      const d = await until('the product index_error', async () =>
        (await doc('products', productId))?.index_error ? doc('products', productId) : undefined,
      );
      expect(d).toMatchObject({ needs_index: false, indexed_version: 0, index_error: { version: 1 } });
      await sleep(INTERVAL_MS * 3); // let a background pass that met the write settle
      attempts.product = (await doc('products', productId))!.index_error.attempts;
      expect([1, 2]).toContain(attempts.product);
      expect(d!.index_error.message).toMatch(/^document_parsing_exception: .*zero magnitude/);
    },
  );

  test('when the indexers run many passes, then the refused documents are not tried again', async () => {
    const before = [await doc('knowledge_entries', entryId), await doc('products', productId)];
    await sleep(INTERVAL_MS * 8);
    for (let i = 0; i < 3; i++) await stack.indexPending();
    const after = [await doc('knowledge_entries', entryId), await doc('products', productId)];
    for (const [i, d] of after.entries()) {
      expect(d!.index_error).toEqual(before[i]!.index_error); // same attempts, same time
      expect(d!.indexed_version).toBe(0);
    }
  });

  test('when `index errors` runs, then it lists each refused document with its tenant, version, attempts and reason', async () => {
    const entries = await stack.admin('index', 'errors', '--tenant', tenant);
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatch(
      new RegExp(
        `^entries\\t${tenant}\\t${entryId}\\tversion 1\\tattempts ` +
          `${attempts.entry}\\t\\d{4}-\\d\\d-\\d\\dT[^\\t]+\\tdocument_parsing_exception: `,
      ),
    );
    expect(entries[1]).toBe(`1 entries refused by the search index in tenant ${tenant}`);
    const products = await stack.catalogAdmin('index', 'errors', '--kind', 'products');
    expect(products.code).toBe(0);
    expect(products.stdout[0]).toMatch(
      new RegExp(`^products\\t${tenant}\\t${productId}\\tversion 1\\tattempts ${attempts.product}\\t`),
    );

    // npm run admin -- index errors: both kinds from one command; --kind picks one.
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [path.resolve(__dirname, '../../tools/admin/dist/main.js'), ...args], {
        env: { ...process.env, MONGODB_URI: stack.mongoUri },
        encoding: 'utf8',
        timeout: 30_000,
      });
    const both = cli('index', 'errors', '--tenant', tenant);
    expect(both.status).toBe(0);
    expect(both.stdout).toContain(`entries\t${tenant}\t${entryId}\t`);
    expect(both.stdout).toContain(`products\t${tenant}\t${productId}\t`);
    const onlyProducts = cli('index', 'errors', '--kind=products');
    expect(onlyProducts.stdout).not.toContain(entryId);
    expect(onlyProducts.stdout).toContain(productId);
    const onlyEntries = cli('index', 'errors', '--kind', 'entries', '--tenant', tenant);
    expect(onlyEntries.stdout).toContain(entryId);
    expect(onlyEntries.stdout).not.toContain(productId);
    const bad = cli('index', 'errors', '--kind', 'orders');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--kind must be entries or products');
  });

  test('when an operator retries, then the document is tried once more and, refused again, counts a second attempt', async () => {
    const retried = await stack.catalogAdmin('index', 'retry', '--tenant', tenant, productId);
    expect(retried.stdout).toEqual([
      `Queued 1 refused products for indexing again in tenant ${tenant} (the running catalog's indexer takes them)`,
    ]);
    const d = await until('a second attempt', async () => {
      const p = await doc('products', productId);
      return p?.index_error?.attempts === attempts.product + 1 && p.needs_index === false ? p : undefined;
    });
    expect(d.index_error.version).toBe(1);
    expect(await stack.admin('index', 'retry', '--tenant', tenant, '--kind', 'entries')).toEqual([
      `Queued 1 refused entries for indexing again in tenant ${tenant} (the running knowledge service's indexer takes them)`,
    ]);
    await until('the entry refused again', async () =>
      (await doc('knowledge_entries', entryId))?.index_error?.attempts === attempts.entry + 1 ? true : undefined,
    );
  });

  test('when a fixed version is written, then it is indexed, the error is cleared and search finds it', async () => {
    const entryPut = await stack.request(tenant, `/api/knowledge/knowledge-entries/${entryId}`, {
      method: 'PUT',
      token: admin,
      body: { content: `Fixed body of ${uid}` },
    });
    expect(entryPut.status).toBe(200);
    const productPut = await stack.request(tenant, '/api/knowledge/products?site_id=shop', {
      method: 'POST',
      token: admin,
      body: { external_id: `lamp-${uid}`, ...productText, description: `A fixed lamp ${uid}`, language: 'en' },
    });
    expect(productPut.status).toBe(200);
    const e = await indexed('knowledge_entries', entryId);
    const p = await indexed('products', productId);
    expect([e.version, e.index_error, p.version, p.index_error]).toEqual([2, undefined, 2, undefined]);
    const entryHits = await stack.request(tenant, '/api/knowledge/search/entries', {
      method: 'POST',
      token: admin,
      body: { query: entryText.title },
    });
    expect(entryHits.json[0].entry.id).toBe(entryId);
    const productHits = await stack.request(tenant, '/api/knowledge/search/products', {
      method: 'POST',
      token: admin,
      body: { query: productText.title },
    });
    expect(productHits.json.products[0].id).toBe(productId);
    expect(await stack.admin('index', 'errors', '--tenant', tenant)).toEqual([
      `No entries refused by the search index in tenant ${tenant}`,
    ]);
  });
});
