/**
 * What Elasticsearch could refuse, against real Elasticsearch and the real model: values longer
 * than a keyword term may be (Lucene's 32,766-byte limit), blank texts, documents it does refuse
 * (reported per item, with its reason, never as an outage), indices made with an earlier mapping,
 * and a bulk request over Elasticsearch's size limit.
 */
import { randomUUID } from 'node:crypto';
import { Client, errors } from '@elastic/elasticsearch';
import type { similarityV1 } from '@kb/platform';
import { caller, ELASTICSEARCH_URL, entryDocument, product, startSimilarity, type Harness } from './support/similarity';
import { bulkWrite } from '../../src/data-access/documents';
import { textHash } from '../../src/data-access/embedding-store';
import { aliasName, newIndexName, KEYWORD_IGNORE_ABOVE, productMappings } from '@kb/search';
import { toBase64 } from '../../src/data-access/vector-encoding';
import { testName } from '../../../../test/support/test-names';

let h: Harness;
let es: Client;
const tenant = `t-${randomUUID()}`;

beforeAll(async () => {
  h = await startSimilarity();
  es = new Client({ node: ELASTICSEARCH_URL() });
});
afterAll(async () => {
  await h?.stop();
  await es?.close();
});

const productsAlias = () => h.server.indices.alias('products');
const entriesAlias = () => h.server.indices.alias('entries');
const source = async (index: string, id: string) =>
  (await es.get<Record<string, unknown>>({ index, id }))._source ?? {};
const long = (word: string) => `${word} ${'x'.repeat(40_000)} ${word}-end`;
const entry = (overrides: Partial<similarityV1.EntryDocument> & { id: string }) =>
  entryDocument({ tenant_id: tenant, ...overrides });

describe('long values', () => {
  test(
    'when a category and a brand are 40 KB, then the product is ' +
      'indexed, found by full text, and short values still filter exactly',
    async () => {
      const [id, other] = [randomUUID(), randomUUID()];
      const res = await h.client.call('IndexProducts', {
        caller: caller(tenant),
        products: [
          product({ id, tenant_id: tenant, title: 'Spade', category: long('gardentools'), brand: long('acmebrand') }),
          product({ id: other, tenant_id: tenant, title: 'Rake', category: 'Garden', brand: 'Acme' }),
        ],
      });
      expect(res.results.map((r) => [r.status, r.error])).toEqual([
        ['indexed', ''],
        ['indexed', ''],
      ]);
      expect((await source(productsAlias(), id))['category']).toBe(long('gardentools')); // stored whole
      const found = await h.client.call('SearchProducts', { caller: caller(tenant), query: 'gardentools', limit: 5 });
      expect(found.hits[0]?.id).toBe(id);
      const filtered = await h.client.call('SearchProducts', {
        caller: caller(tenant),
        query: 'rake',
        category: 'Garden',
        brand: 'Acme',
        limit: 5,
      });
      expect(filtered.hits.map((x) => x.id)).toEqual([other]);
    },
  );

  test('when an entry has a 40 KB tag, then it is indexed with every tag and the short tags are still terms', async () => {
    const id = randomUUID();
    const res = await h.client.call('IndexEntries', {
      caller: caller(tenant),
      entries: [entry({ id, title: 'Tagged entry', tags: [long('bigtag'), 'small'] })],
    });
    expect(res.results[0]).toMatchObject({ status: 'indexed', error: '' });
    expect((await source(entriesAlias(), id))['tags']).toEqual([long('bigtag'), 'small']);
    const hits = await es.search({ index: entriesAlias(), query: { term: { tags: 'small' } } });
    expect(hits.hits.hits.map((x) => x._id)).toContain(id);
  });

  test('when a value is exactly at the keyword bound, then it is still an exact term', async () => {
    const id = randomUUID();
    const category = 'ü'.repeat(KEYWORD_IGNORE_ABOVE); // 2 bytes each: 16 KB, under Lucene's limit
    await h.client.call('IndexProducts', {
      caller: caller(tenant),
      products: [product({ id, tenant_id: tenant, category })],
    });
    const hits = await es.search({ index: productsAlias(), query: { term: { category } } });
    expect(hits.hits.hits.map((x) => x._id)).toEqual([id]);
  });

  test('when title and content are whitespace only, then the entry is indexed without a vector rather than refused', async () => {
    const id = randomUUID();
    const res = await h.client.call('IndexEntries', {
      caller: caller(tenant),
      entries: [entry({ id, title: ' ', content: '  ' })],
    });
    expect(res.results[0]).toEqual({ id, status: 'indexed', embeddings: '', error: '' });
    expect(await source(entriesAlias(), id)).not.toHaveProperty('vector');
    const blankProduct = randomUUID();
    const p = await h.client.call('IndexProducts', {
      caller: caller(tenant),
      products: [product({ id: blankProduct, tenant_id: tenant, title: ' ', text_description: '' })],
    });
    expect(p.results[0]).toMatchObject({ status: 'indexed', error: '' });
  });
});

describe('documents Elasticsearch refuses', () => {
  test(
    'when one entry of a batch violates the mapping, then only it ' +
      'fails, with the type and reason, and the others are indexed',
    async () => {
      const [good, bad] = [randomUUID(), randomUUID()];
      const res = await h.client.call('IndexEntries', {
        caller: caller(tenant),
        entries: [entry({ id: good }), entry({ id: bad, updated_at: 'not a date' })],
      });
      expect(res.results[0]).toMatchObject({ id: good, status: 'indexed' });
      expect(res.results[1]).toMatchObject({ id: bad, status: 'failed' });
      expect(res.results[1]!.error).toMatch(/^document_parsing_exception: .*updated_at/);
    },
  );

  test(
    'when a cached vector has no length, then Elasticsearch refuses ' +
      'the product (cosine needs a direction): failed, not UNAVAILABLE',
    async () => {
      // The e2e tests use this to make Elasticsearch refuse a document written through the API.
      const text = `Refused lamp ${randomUUID()}`;
      const cache = aliasName(h.prefix, 'embeddings', h.server.embedder.model, h.server.embedder.dims);
      await h.server.indices.ensureCache();
      await es.index({
        index: cache,
        id: textHash(text),
        document: {
          model: h.server.embedder.model,
          dims: h.server.embedder.dims,
          embedding: { f32: toBase64(new Float32Array(h.server.embedder.dims)) },
        },
        refresh: true,
      });
      const id = randomUUID();
      const res = await h.client.call('IndexProducts', {
        caller: caller(tenant),
        products: [product({ id, tenant_id: tenant, text_description: text })],
      });
      expect(res.results[0]).toMatchObject({ id, status: 'failed' });
      expect(res.results[0]!.error).toMatch(/^document_parsing_exception: .*zero magnitude/);
    },
  );
});

describe('indices made by an earlier release', () => {
  test(
    'when the alias points at an index whose keywords have no ignore_above, ' +
      'then the service updates the mapping at start and long values index',
    async () => {
      const prefix = testName('kbold');
      const { model, dims } = h.server.embedder;
      const alias = aliasName(prefix, 'products', model, dims);
      // The mapping as it was before ignore_above: keyword fields without a bound.
      const old = JSON.parse(
        JSON.stringify(productMappings(dims)).replaceAll(`,"ignore_above":${KEYWORD_IGNORE_ABOVE}`, ''),
      );
      const index = newIndexName(alias);
      await es.indices.create({ index, mappings: old, aliases: { [alias]: {} } });
      expect((await es.indices.getMapping({ index }))[index]!.mappings.properties?.['category']).not.toHaveProperty(
        'ignore_above',
      );

      const upgraded = await startSimilarity({ ELASTICSEARCH_INDEX_PREFIX: prefix });
      try {
        expect(upgraded.server.indices.alias('products')).toBe(alias);
        expect((await es.indices.getMapping({ index }))[index]!.mappings.properties?.['category']).toMatchObject({
          type: 'keyword',
          ignore_above: KEYWORD_IGNORE_ABOVE,
        });
        const id = randomUUID();
        const res = await upgraded.client.call('IndexProducts', {
          caller: caller(tenant),
          products: [product({ id, tenant_id: tenant, category: long('legacy') })],
        });
        expect(res.results[0]).toMatchObject({ status: 'indexed', error: '' });
        expect((await es.get({ index: alias, id }))._index).toBe(index);
      } finally {
        await upgraded.stop();
        await es.indices.delete({ index, ignore_unavailable: true });
      }
    },
  );
});

describe('a bulk request over Elasticsearch size limit', () => {
  test('when a batch is too large for one request, then it is halved until the one document too large fails alone', async () => {
    // Elasticsearch answers 413 to a request over http.max_content_length (100 MB): stand-in client.
    const sizes: number[] = [];
    const refreshed: string[] = [];
    const fake = {
      bulk: async ({ operations }: { operations: (Record<string, unknown> | string)[] }) => {
        // Document lines are sent as JSON text (documentJson), action lines as objects.
        const docs = operations
          .filter((_, i) => i % 2 === 1)
          .map((d) => (typeof d === 'string' ? (JSON.parse(d) as Record<string, unknown>) : d));
        sizes.push(docs.length);
        if (docs.length > 1 || docs.some((d) => d['huge'])) {
          throw new errors.ResponseError({ body: '', statusCode: 413, headers: {}, warnings: null, meta: {} as never });
        }
        return { errors: false, items: [{ index: { status: 201, _id: 'x' } }] };
      },
      indices: { refresh: async ({ index }: { index: string }) => void refreshed.push(index) },
    } as unknown as Client;
    const docs = ['a', 'b', 'c'].map((id) => ({ id, version: 1, doc: { huge: id === 'b' }, sources: [] }));
    const results = await bulkWrite(fake, 'products', docs);
    expect(results.map((r) => [r.id, r.status])).toEqual([
      ['a', 'indexed'],
      ['b', 'failed'],
      ['c', 'indexed'],
    ]);
    expect(results[1]!.error).toMatch(/^document_too_large/);
    expect(sizes).toEqual([3, 2, 1, 1, 1]);
    // What was written is made searchable before the call answers.
    expect(new Set(refreshed)).toEqual(new Set(['products']));
  });

  test('when indexing pressure refuses a shard request as larger than it ever admits, its documents alone go again, smaller', async () => {
    // Elasticsearch 9.2's answer to one 14.5 MB entry on a 512 MB heap, per item: stand-in client.
    const over =
      'rejected execution of primary operation [coordinating_and_primary_bytes=14579462, replica_bytes=0, ' +
      'all_bytes=14579462, primary_operation_bytes=58316824, max_primary_bytes=53687091]';
    const sent: string[][] = [];
    const fake = {
      bulk: async ({ operations }: { operations: (Record<string, unknown> | string)[] }) => {
        const docs = operations
          .filter((_, i) => i % 2 === 1)
          .map((d) => JSON.parse(d as string) as { id: string; huge: boolean; shard: number });
        sent.push(docs.map((d) => d.id));
        // Documents of shard 1 are refused together while a huge one is among them; shard 0's pass.
        const refused = (shard: number) => shard === 1 && docs.some((d) => d.shard === 1 && d.huge);
        return {
          errors: true,
          items: docs.map((d) => ({
            index: refused(d.shard)
              ? { status: 429, _id: d.id, error: { type: 'es_rejected_execution_exception', reason: over } }
              : { status: 201, _id: d.id },
          })),
        };
      },
      indices: { refresh: async () => ({}) },
    } as unknown as Client;
    const spec = [
      ['a', 0, false],
      ['b', 1, true],
      ['c', 1, false],
      ['d', 0, false],
    ] as const;
    const docs = spec.map(([id, shard, huge]) => ({ id, version: 1, doc: { id, shard, huge }, sources: [] }));
    const results = await bulkWrite(fake, 'entries', docs);
    expect(Object.fromEntries(results.map((r) => [r.id, r.status]))).toEqual({
      a: 'indexed',
      b: 'failed',
      c: 'indexed',
      d: 'indexed',
    });
    expect(results.find((r) => r.id === 'b')!.error).toMatch(/^document_too_large: .*indexing pressure/);
    expect(sent).toEqual([['a', 'b', 'c', 'd'], ['b'], ['c']]);
  });
});
