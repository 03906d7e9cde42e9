/**
 * Indexing through the gRPC contract against real Elasticsearch and the real model: external
 * versioning, deletes, the embedding cache, vector reuse, tenancy, reindex and outages.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import {
  caller,
  ELASTICSEARCH_URL,
  entryDocument,
  failure,
  product,
  startSimilarity,
  SYSTEM,
  type Harness,
} from './support/similarity';
import {
  CACHE_REFRESH_INTERVAL,
  centralities,
  isSplitAliasItem,
  SEARCH_REFRESH_INTERVAL,
  SplitAliasError,
} from '@kb/search';
import { IndexManager } from '../../src/data-access/index-manager';
import { textHash } from '../../src/data-access/embedding-store';
import { EMBED_CHUNK } from '../../src/domain/embedding-cache';
import { CONTENT_CHARS_PER_GROUP } from '../../src/domain/index-entries';
import pino from 'pino';
import { refreshThreadsIdle } from '../../../../test/support/elasticsearch-refresh';
import { testName } from '../../../../test/support/test-names';

let h: Harness;
let es: Client;
const tenant = `t-${randomUUID()}`;
const other = `t-${randomUUID()}`;

beforeAll(async () => {
  h = await startSimilarity();
  es = new Client({ node: ELASTICSEARCH_URL() });
});
afterAll(async () => {
  await h?.stop();
  await es?.close();
});

const productsAlias = () => h.server.indices.alias('products');
const getDoc = async (id: string, index = productsAlias()) => {
  try {
    // Vectors are kept out of _source unless asked for (exclude_source_vectors).
    return await es.get<Record<string, unknown>>({ index, id, _source_exclude_vectors: false });
  } catch {
    return undefined;
  }
};

describe('indexing products', () => {
  test('when a product is indexed, then it is stored under the alias with its version and three vectors', async () => {
    const id = randomUUID();
    const res = await h.client.call('IndexProducts', {
      caller: caller(tenant),
      products: [
        product({
          id,
          tenant_id: tenant,
          version: 3,
          title: 'Blue kettle',
          text_description: 'Blue kettle, 1.7 l',
          text_properties: 'colour blue',
          text_attributes: 'steel',
          price_current: '19.90',
          sku: 'KET-1',
        }),
      ],
    });
    expect(res.model).toBe(h.server.embedder.model);
    expect(res.results).toEqual([{ id, status: 'indexed', embeddings: 'computed', error: '' }]);
    const doc = await getDoc(id);
    expect(doc?._version).toBe(3);
    expect(doc?._index.startsWith(`${productsAlias()}-`)).toBe(true);
    expect(doc?._source).toMatchObject({
      tenant_id: tenant,
      title: 'Blue kettle',
      price_current: 19.9,
      sku: 'KET-1',
      version: 3,
    });
    for (const f of ['vector_description', 'vector_properties', 'vector_attributes'])
      expect(doc?._source?.[f]).toHaveLength(h.server.embedder.dims);
  });

  test(
    'when products are indexed searchable_later, then the call answers without ' +
      'a refresh; a call without it makes everything written searchable on return',
    async () => {
      // No periodic refresh while this runs: what a search finds is only what a refresh made searchable.
      await es.indices.putSettings({ index: productsAlias(), settings: { refresh_interval: '-1' } });
      // Elasticsearch answers a refresh_interval change with one more refresh of its own, run on its
      // refresh threads after the change is acknowledged: wait for them to be idle, or that refresh
      // could come after the write below and make it searchable.
      await refreshThreadsIdle(es);
      try {
        const t = `t-${randomUUID()}`;
        const [later, now] = [randomUUID(), randomUUID()];
        const searchable = async () =>
          (await es.count({ index: productsAlias(), query: { term: { tenant_id: t } } })).count;
        const res = await h.client.call('IndexProducts', {
          caller: caller(t),
          products: [product({ id: later, tenant_id: t })],
          searchable_later: true,
        });
        expect(res.results).toEqual([{ id: later, status: 'indexed', embeddings: 'computed', error: '' }]);
        expect((await getDoc(later))?._source?.['tenant_id']).toBe(t); // written (a realtime get sees it)
        expect(await searchable()).toBe(0); // but not refreshed
        await h.client.call('IndexProducts', { caller: caller(t), products: [product({ id: now, tenant_id: t })] });
        expect(await searchable()).toBe(2);
      } finally {
        await es.indices.putSettings({
          index: productsAlias(),
          settings: { refresh_interval: SEARCH_REFRESH_INTERVAL },
        });
      }
    },
  );

  test('when an older version arrives after a newer one, then it is reported stale and the newer stays', async () => {
    const id = randomUUID();
    const write = (version: number, title: string) =>
      h.client.call('IndexProducts', {
        caller: caller(tenant),
        products: [product({ id, tenant_id: tenant, version, title })],
      });
    expect((await write(5, 'Version five')).results[0]!.status).toBe('indexed');
    expect((await write(4, 'Version four')).results[0]!.status).toBe('stale');
    expect((await write(5, 'Version five again')).results[0]!.status).toBe('stale');
    expect((await getDoc(id))?._source?.['title']).toBe('Version five');
    expect((await write(6, 'Version six')).results[0]!.status).toBe('indexed');
    expect((await getDoc(id))?._source?.['title']).toBe('Version six');
  });

  test('when single-product writes come side by side, then each is searchable when it is answered', async () => {
    // The writes share refreshes (RefreshCoalescer, unit-tested); here, against Elasticsearch, that
    // sharing never answers a write before a refresh that began after it.
    const ids = Array.from({ length: 8 }, () => randomUUID());
    const write = (id: string, i: number) =>
      h.client.call('IndexProducts', {
        caller: caller(tenant),
        products: [
          product({ id, tenant_id: tenant, title: `Side by side ${i}`, text_description: `Side by side ${i}` }),
        ],
      });
    // Texts embedded first, so that the eight bulk requests reach Elasticsearch close together.
    await Promise.all(
      ids.map((_, i) => h.client.call('Embed', { caller: caller(tenant), texts: [`Side by side ${i}`] })),
    );
    // A search (not a realtime GET) right after each answer: what was answered must be searchable.
    const found = await Promise.all(
      ids.map(async (id, i) => {
        expect((await write(id, i)).results[0]!.status).toBe('indexed');
        return (await es.search({ index: productsAlias(), query: { ids: { values: [id] } }, size: 1 })).hits.hits
          .length;
      }),
    );
    expect(found).toEqual(ids.map(() => 1));
  });

  test('when a field text is empty, then that vector is left out', async () => {
    const id = randomUUID();
    await h.client.call('IndexProducts', {
      caller: caller(tenant),
      products: [product({ id, tenant_id: tenant, text_properties: '  ', text_attributes: '' })],
    });
    const doc = await getDoc(id);
    expect(doc?._source?.['vector_description']).toHaveLength(h.server.embedder.dims);
    expect(doc?._source).not.toHaveProperty('vector_properties');
    expect(doc?._source).not.toHaveProperty('vector_attributes');
  });

  test('when an item is invalid, then only it fails and the others are indexed', async () => {
    const good = randomUUID();
    const res = await h.client.call('IndexProducts', {
      caller: caller(tenant),
      products: [
        product({ id: good, tenant_id: tenant }),
        product({ id: randomUUID(), tenant_id: tenant, version: 0 }),
        product({ id: randomUUID(), tenant_id: tenant, price_current: '12,50' }),
      ],
    });
    expect(res.results.map((r) => r.status)).toEqual(['indexed', 'failed', 'failed']);
    expect(res.results[1]!.error).toMatch(/version/);
    expect(res.results[2]!.error).toMatch(/price_current/);
  });

  test("when a tenant caller sends another tenant's product, then it fails and nothing is written", async () => {
    const id = randomUUID();
    const res = await h.client.call('IndexProducts', {
      caller: caller(tenant),
      products: [product({ id, tenant_id: other })],
    });
    expect(res.results[0]).toMatchObject({ status: 'failed', error: 'tenant_id is not the caller tenant' });
    expect(await getDoc(id)).toBeUndefined();
  });

  test('when the system caller (empty tenant) indexes documents of several tenants, then they are accepted', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const res = await h.client.call('IndexProducts', {
      caller: SYSTEM,
      products: [product({ id: a, tenant_id: tenant }), product({ id: b, tenant_id: other })],
    });
    expect(res.results.map((r) => r.status)).toEqual(['indexed', 'indexed']);
  });

  test('when a tenant caller lacks knowledge:write, then indexing is refused', async () => {
    const err = await failure(
      h.client.call('IndexProducts', {
        caller: caller(tenant, { scopes: ['knowledge:read'] }),
        products: [product({ id: randomUUID(), tenant_id: tenant })],
      }),
    );
    expect(err.kind).toBe('forbidden');
  });
});

describe('embedding cache', () => {
  test('when the same text is indexed twice, then the second time is cached', async () => {
    const text = `A unique lamp ${randomUUID()}`;
    const first = await h.client.call('IndexProducts', {
      caller: caller(tenant),
      products: [product({ id: randomUUID(), tenant_id: tenant, text_description: text })],
    });
    const second = await h.client.call('IndexProducts', {
      caller: caller(tenant),
      products: [product({ id: randomUUID(), tenant_id: tenant, text_description: text })],
    });
    expect(first.results[0]!.embeddings).toBe('computed');
    expect(second.results[0]!.embeddings).toBe('cached');
  });

  test('when the service restarts, then a text embedded before comes from the persisted cache', async () => {
    const text = `A unique chair ${randomUUID()}`;
    const first = await h.client.call('IndexProducts', {
      caller: caller(tenant),
      products: [product({ id: randomUUID(), tenant_id: tenant, text_description: text })],
    });
    expect(first.results[0]!.embeddings).toBe('computed');
    const again = await startSimilarity({ ELASTICSEARCH_INDEX_PREFIX: h.prefix });
    try {
      const second = await again.client.call('IndexProducts', {
        caller: caller(tenant),
        products: [product({ id: randomUUID(), tenant_id: tenant, text_description: text })],
      });
      expect(second.results[0]!.embeddings).toBe('cached');
      const a = await getDoc(first.results[0]!.id);
      const b = await getDoc(second.results[0]!.id);
      expect(b?._source?.['vector_description']).toEqual(a?._source?.['vector_description']);
    } finally {
      await again.stop();
    }
  });

  test(
    'when a search is run, then its query text is not written to the ' +
      'embedding cache index (queries would grow it without bound)',
    async () => {
      const indexed = `A unique kettle ${randomUUID()}`;
      const query = `a query no document holds ${randomUUID()}`;
      await h.client.call('IndexProducts', {
        caller: caller(tenant),
        products: [product({ id: randomUUID(), tenant_id: tenant, text_description: indexed })],
      });
      await h.client.call('SearchProducts', { caller: caller(tenant), query, limit: 5 });
      const cache = h.server.indices.cacheIndex;
      await es.indices.refresh({ index: cache });
      const stored = await es.mget({ index: cache, ids: [textHash(indexed), textHash(query)] });
      expect(stored.docs.map((d) => 'found' in d && d.found)).toEqual([true, false]);
    },
  );

  test('when reuse_vectors is set and vectors are indexed, then they are kept (reused) even if the text changed', async () => {
    const id = randomUUID();
    await h.client.call('IndexProducts', {
      caller: caller(tenant),
      products: [product({ id, tenant_id: tenant, version: 1, text_description: `Red bike ${id}` })],
    });
    const before = await getDoc(id);
    const res = await h.client.call('IndexProducts', {
      caller: caller(tenant),
      products: [
        product({
          id,
          tenant_id: tenant,
          version: 2,
          title: 'Renamed',
          text_description: `Entirely different ${id}`,
          reuse_vectors: true,
        }),
      ],
    });
    expect(res.results[0]).toMatchObject({ status: 'indexed', embeddings: 'reused' });
    const after = await getDoc(id);
    expect(after?._source?.['title']).toBe('Renamed');
    expect(after?._source?.['vector_description']).toEqual(before?._source?.['vector_description']);
  });

  test('when reuse_vectors is set but nothing is indexed yet, then the vectors are embedded', async () => {
    const res = await h.client.call('IndexProducts', {
      caller: caller(tenant),
      products: [
        product({
          id: randomUUID(),
          tenant_id: tenant,
          text_description: `Green tent ${randomUUID()}`,
          reuse_vectors: true,
        }),
      ],
    });
    expect(res.results[0]!.embeddings).toBe('computed');
  });
});

describe('indexing entries', () => {
  /** Indexes one entry of these fields (a fresh id) and reads back its document's source. */
  const indexedSource = async (fields: Partial<Parameters<typeof entryDocument>[0]>) => {
    const id = randomUUID();
    await h.client.call('IndexEntries', {
      caller: caller(tenant),
      entries: [entryDocument({ id, tenant_id: tenant, ...fields })],
    });
    return (await getDoc(id, h.server.indices.alias('entries')))?._source;
  };

  test("when an entry is indexed, then each sentence carries its centrality among the entry's sentences", async () => {
    // Two passages (two sections): the sentence about something else opens the second.
    const sentences = [
      'Parcel lockers keep a parcel for seven days before it goes back to the sender.',
      'A locker parcel is kept for a week and then returned to whoever sent it.',
      'Lockers hold parcels seven days; after that the parcel is sent back.',
      'Our bakery sells sourdough bread on Saturday mornings from eight o clock.',
      'A parcel left in a locker past seven days is returned to its sender.',
    ];
    const source = await indexedSource({
      title: 'Parcel lockers',
      content: `## Keeping\n\n${sentences.slice(0, 3).join(' ')}\n\n## Elsewhere\n\n${sentences.slice(3).join(' ')}`,
    });
    const stored = source?.['sentences'] as { start: number; vector: number[]; centrality: number }[];
    expect(stored).toHaveLength(5);
    expect(new Set(stored.map((s) => s.start)).size).toBe(2);
    // Computed from the unrounded vectors: the stored ones (5 decimals) give the same within 0.005.
    centralities(stored.map((s) => s.vector)).forEach((c, i) => expect(stored[i]!.centrality).toBeCloseTo(c, 2));
    // The sentence about something else (the second passage's first) is the least central.
    expect(stored[3]!.centrality).toBe(Math.min(...stored.map((s) => s.centrality)));
    expect(stored[3]!.start).toBeGreaterThan(stored[2]!.start);
  });

  test('when an entry is indexed, then each passage stores the kinds of answer it states', async () => {
    const source = await indexedSource({
      language: 'de',
      title: 'Expressversand',
      content:
        '## Preis\n\nDer Expresszuschlag beträgt 9,90 Euro und das Paket kommt in zwei Werktagen.\n\n' +
        '## Annahmeschluss\n\nBestellungen bis 12 Uhr gehen am selben Tag raus.\n\n' +
        '## Hilfe\n\nUnser Serviceteam hilft gern, Ihre Nummer ist SC-28763.',
    });
    const passages = source?.['passages'] as { answers: string[] }[];
    expect(passages.map((p) => p.answers)).toEqual([['money', 'duration'], ['clock'], []]);
  });

  test('when an entry is indexed, then its topic vector embeds its title, summary and similarity_text, not its content', async () => {
    const id = randomUUID();
    const entry = (version: number, summary: string, content: string) =>
      entryDocument({
        id,
        tenant_id: tenant,
        version,
        title: 'Parcel lockers',
        summary,
        similarity_text: 'collection points',
        content,
      });
    const topicOf = async () => {
      const doc = await getDoc(id, h.server.indices.alias('entries'));
      expect(doc?._source?.['has_topic']).toBe(true);
      return doc?._source?.['topic_vector'] as number[];
    };
    const embedded = async (text: string) => Array.from((await h.server.embedder.embed([text]))[0]!);
    const close = (a: number[], b: number[]) => a.every((x, i) => Math.abs(x - b[i]!) < 1e-4);

    await h.client.call('IndexEntries', {
      caller: caller(tenant),
      entries: [entry(1, 'Where lockers are and how long they keep a parcel.', `Lockers keep parcels. ${id}`)],
    });
    const first = await topicOf();
    expect(first).toHaveLength(h.server.embedder.dims);
    expect(
      close(
        first,
        await embedded('Parcel lockers\nWhere lockers are and how long they keep a parcel.\ncollection points'),
      ),
    ).toBe(true);
    // Another content: the same topic. Another summary: another topic.
    await h.client.call('IndexEntries', {
      caller: caller(tenant),
      entries: [entry(2, 'Where lockers are and how long they keep a parcel.', `A different body. ${id}`)],
    });
    expect(close(await topicOf(), first)).toBe(true);
    await h.client.call('IndexEntries', {
      caller: caller(tenant),
      entries: [entry(3, 'Opening hours of the pickup desk.', `A different body. ${id}`)],
    });
    expect(close(await topicOf(), first)).toBe(false);
  });
});

describe('deleting', () => {
  test('when a product is deleted at its version, then it is gone; an unknown id is fine', async () => {
    const id = randomUUID();
    await h.client.call('IndexProducts', {
      caller: caller(tenant),
      products: [product({ id, tenant_id: tenant, version: 2 })],
    });
    const res = await h.client.call('DeleteProducts', {
      caller: caller(tenant),
      documents: [
        { id, version: 3 },
        { id: randomUUID(), version: 1 },
      ],
    });
    expect(res.deleted).toBe(1);
    expect(await getDoc(id)).toBeUndefined();
  });

  test('when a delete carries an older version than the indexed one, then the document stays', async () => {
    const id = randomUUID();
    await h.client.call('IndexProducts', {
      caller: caller(tenant),
      products: [product({ id, tenant_id: tenant, version: 7 })],
    });
    const res = await h.client.call('DeleteProducts', { caller: caller(tenant), documents: [{ id, version: 6 }] });
    expect(res.deleted).toBe(0);
    expect((await getDoc(id))?._version).toBe(7);
  });

  test('when a delete has been applied, then an older index write of the same id is stale', async () => {
    const id = randomUUID();
    await h.client.call('IndexProducts', {
      caller: caller(tenant),
      products: [product({ id, tenant_id: tenant, version: 1 })],
    });
    await h.client.call('DeleteProducts', { caller: caller(tenant), documents: [{ id, version: 2 }] });
    const res = await h.client.call('IndexProducts', {
      caller: caller(tenant),
      products: [product({ id, tenant_id: tenant, version: 1 })],
    });
    expect(res.results[0]!.status).toBe('stale');
    expect(await getDoc(id)).toBeUndefined();
  });

  test("when a tenant deletes another tenant's product, then nothing is deleted", async () => {
    const id = randomUUID();
    await h.client.call('IndexProducts', { caller: SYSTEM, products: [product({ id, tenant_id: other, version: 1 })] });
    const res = await h.client.call('DeleteProducts', { caller: caller(tenant), documents: [{ id, version: 9 }] });
    expect(res.deleted).toBe(0);
    expect(await getDoc(id)).toBeDefined();
  });

  test('when entries are indexed, then the model is answered, versions are external and a repeat text is cached', async () => {
    const id = randomUUID();
    const entry = (version: number, title: string) => ({
      id,
      tenant_id: tenant,
      version,
      title,
      content: `Body ${id}`,
      type: 'knowledge',
      visibility: 'internal',
      category_id: 'c',
      language: 'en',
      search_keywords: ['x'],
      tags: ['t'],
      updated_at: new Date().toISOString(),
    });
    const first = await h.client.call('IndexEntries', { caller: caller(tenant), entries: [entry(2, 'Second')] });
    expect(first).toEqual({
      model: h.server.embedder.model,
      results: [{ id, status: 'indexed', embeddings: 'computed', error: '' }],
    });
    const older = await h.client.call('IndexEntries', { caller: caller(tenant), entries: [entry(1, 'First')] });
    expect(older.results[0]).toMatchObject({ status: 'stale' });
    const again = await h.client.call('IndexEntries', { caller: caller(tenant), entries: [entry(3, 'Second')] });
    expect(again.results[0]).toMatchObject({ status: 'indexed', embeddings: 'cached' });
    const doc = await getDoc(id, h.server.indices.alias('entries'));
    expect(doc).toMatchObject({ _version: 3 });
    expect(doc?._source).toMatchObject({ tenant_id: tenant, visibility: 'internal', title: 'Second', tags: ['t'] });
    expect(doc?._source?.['vector']).toHaveLength(h.server.embedder.dims);
  });

  test('when a large index call is abandoned, then it stops within a chunk, keeps its work, and the retry goes on from there', async () => {
    const own = await startSimilarity();
    try {
      const cache = own.server.indices.cacheIndex;
      const cached = async () => {
        await es.indices.refresh({ index: cache });
        return (await es.count({ index: cache })).count;
      };
      const written = async (id: string) => (await getDoc(id, own.server.indices.alias('entries')))?._version;
      const entry = (content: string) =>
        entryDocument({ id: randomUUID(), tenant_id: tenant, title: 'Inventory shelves', content });

      // A short entry, then one over CONTENT_CHARS_PER_GROUP: 800 distinct sentences, with the
      // passages and each sentence read in context ~1,700 texts, several chunks of the model's work.
      const small = entry('Shelf A holds the spare fuses. Shelf B holds the winter tyres for the vans.');
      const large = entry(
        Array.from({ length: 80 }, (_, p) =>
          Array.from(
            { length: 10 },
            (_, s) => `Shelf ${p} holds box ${s}, labelled ${p * 10 + s} for the spring inventory count.`,
          ).join(' '),
        ).join('\n\n'),
      );
      expect(large.content.length).toBeGreaterThan(CONTENT_CHARS_PER_GROUP);
      // The real model answers; the wrapper only notes when each of its calls starts and ends.
      const embedder = own.server.embedder;
      const embed = embedder.embed.bind(embedder);
      type ModelCall = { size: number; started: number; ended?: number };
      const calls: ModelCall[] = [];
      // The large entry's first chunk is held until the deadline has passed, so that it is the
      // chunk in progress then whatever the machine's speed (a busy one, three Elasticsearch
      // nodes beside the tests, had not begun it within a second).
      const DEADLINE_MS = 3_000;
      let held = false;
      let deadline = Number.POSITIVE_INFINITY; // set just before the call
      jest.spyOn(embedder, 'embed').mockImplementation(async (texts) => {
        const call: ModelCall = { size: texts.length, started: Date.now() };
        calls.push(call);
        try {
          if (!held && texts.length >= EMBED_CHUNK) {
            held = true;
            await new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now()) + 300));
          }
          return await embed(texts);
        } finally {
          call.ended = Date.now();
        }
      });
      deadline = Date.now() + DEADLINE_MS;
      const err = await failure(
        own.client.call(
          'IndexEntries',
          { caller: caller(tenant), entries: [small, large] },
          { deadlineMs: DEADLINE_MS },
        ),
      );
      expect(err.kind).toBe('deadline');
      // A chunk in progress when the deadline passed is finished and kept; none starts after it.
      // How long that chunk takes depends on the machine (over 6 s on a busy CI run): wait for
      // the model's calls to end and their vectors to be written, up to a minute.
      const until = Date.now() + 60_000;
      while (calls.some((c) => c.ended === undefined) && Date.now() < until)
        await new Promise((r) => setTimeout(r, 200));
      const kept = calls.reduce((n, c) => n + c.size, 0);
      while ((await cached()) < kept && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
      await new Promise((r) => setTimeout(r, 2_000));
      expect(calls.filter((c) => c.started > deadline + 200)).toEqual([]);
      expect(calls.every((c) => c.ended !== undefined)).toBe(true);
      expect(await cached()).toBe(kept);
      expect(kept).toBeGreaterThanOrEqual(EMBED_CHUNK);
      expect(await written(small.id)).toBe(1);
      expect(await written(large.id)).toBeUndefined();

      const retry = await own.client.call('IndexEntries', { caller: caller(tenant), entries: [small, large] });
      expect(retry.results.map((r) => [r.status, r.embeddings])).toEqual([
        ['indexed', 'cached'],
        ['indexed', 'computed'],
      ]);
      expect(await cached()).toBeGreaterThan(kept + EMBED_CHUNK);
      expect(await written(large.id)).toBe(1);
    } finally {
      await own.stop();
    }
  }, 120_000);

  test('when entries are deleted, then the count is reported', async () => {
    const ids = [randomUUID(), randomUUID()];
    await h.client.call('IndexEntries', {
      caller: caller(tenant),
      entries: ids.map((id) => ({
        id,
        tenant_id: tenant,
        version: 1,
        title: 'Returns',
        content: 'How returns work',
        type: 'knowledge',
        visibility: 'public',
        category_id: 'c',
        language: 'en',
        search_keywords: [],
        tags: [],
        updated_at: new Date().toISOString(),
      })),
    });
    const res = await h.client.call('DeleteEntries', {
      caller: caller(tenant),
      documents: ids.map((id) => ({ id, version: 2 })),
    });
    expect(res.deleted).toBe(2);
  });
});

describe('indices and reindex', () => {
  test('when the system caller asks for the model, then name, dims and provider are answered', async () => {
    const info = await h.client.call('DescribeModel', { caller: SYSTEM });
    expect(info).toEqual({
      model: h.server.embedder.model,
      dims: h.server.embedder.dims,
      provider: 'local',
      // The aliases searches read: the gateway's read path queries them.
      products_alias: h.server.indices.alias('products'),
      entries_alias: h.server.indices.alias('entries'),
      // EMBEDDING_LANGUAGES: the gateway's read path ranks entries with the same fusion profile.
      languages: ['en'],
    });
  });

  test('when two managers create the same alias concurrently, then exactly one index is behind it', async () => {
    const prefix = testName('kbrace');
    const logger = pino({ level: 'silent' });
    const managers = [0, 1, 2].map(() => new IndexManager(es, logger, prefix, 'Some/Model_V2', 8));
    await Promise.all(managers.map((m) => m.ensure('products')));
    const alias = managers[0]!.alias('products');
    expect(alias).toBe(`${prefix}-products-some-model-v2-8`);
    const behind = Object.keys(await es.indices.getAlias({ name: alias }));
    expect(behind).toHaveLength(1);
    const all = await es.cat.indices({ index: `${alias}-*`, format: 'json' });
    expect(all).toHaveLength(1);
  });

  test(
    'when two indices are left behind the alias (a creation race whose loser never checked), then the ' +
      'next ensure or write keeps the first created and deletes the other, and writes go through',
    async () => {
      const prefix = testName('kbsplit');
      const logger = pino({ level: 'silent' });
      const first = new IndexManager(es, logger, prefix, 'm', 8);
      await first.ensure('products');
      const alias = first.alias('products');
      const [original] = Object.keys(await es.indices.getAlias({ name: alias }));
      // The loser's index lands later, under an older name, and nobody checks after it.
      const late = `${alias}-00000000000000000-000000`;
      await es.indices.create({ index: late, aliases: { [alias]: {} } });
      expect(Object.keys(await es.indices.getAlias({ name: alias })).sort()).toEqual([late, original].sort());
      // A write through the split alias is refused by Elasticsearch: the manager settles the alias and writes again.
      let attempts = 0;
      const written = await first.withAlias('products', async () => {
        attempts++;
        const res = await es.bulk({ operations: [{ index: { _index: alias, _id: 'a' } }, { tenant_id: 't' }] });
        if (isSplitAliasItem(res.items[0]?.index)) throw new SplitAliasError(alias);
        return res.items[0]?.index?.result;
      });
      expect([attempts, written]).toEqual([2, 'created']);
      expect(Object.keys(await es.indices.getAlias({ name: alias }))).toEqual([original]);
      expect(await es.indices.exists({ index: late })).toBe(false);
      // A manager starting later settles it the same way.
      const later = `${alias}-00000000000000000-000001`;
      await es.indices.create({ index: later, aliases: { [alias]: {} } });
      await new IndexManager(es, logger, prefix, 'm', 8).ensure('products');
      expect(Object.keys(await es.indices.getAlias({ name: alias }))).toEqual([original]);
    },
  );

  test(
    "when the vectors are int8_hnsw, then the index is made so and kNN hits carry the float vectors' exact " +
      'cosines (candidates rescored), the same ten as brute force',
    async () => {
      const logger = pino({ level: 'silent' });
      const dims = 64;
      const manager = new IndexManager(es, logger, testName('kbint8'), 'm', dims, {
        shards: 1,
        replicas: '0-1',
        vectors: 'int8_hnsw',
      });
      await manager.ensure('products');
      const index = manager.alias('products');
      const [mapping] = Object.values(await es.indices.getMapping({ index }));
      expect(mapping!.mappings.properties!['vector_description']).toMatchObject({
        index_options: { type: 'int8_hnsw', rescore_vector: { oversample: 3 } },
      });
      // Seeded unit vectors: 400 documents and one query.
      let seed = 7;
      const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
      const unit = () => {
        const v = Array.from({ length: dims }, random);
        const norm = Math.hypot(...v);
        return v.map((x) => x / norm);
      };
      const docs = Array.from({ length: 400 }, (_, i) => ({ id: `p${i}`, v: unit() }));
      await es.bulk({
        refresh: true,
        operations: docs.flatMap((d) => [
          { index: { _index: index, _id: d.id } },
          { tenant_id: 't', vector_description: d.v },
        ]),
      });
      const q = unit();
      const cos = (v: number[]) => v.reduce((a, x, i) => a + x * q[i]!, 0);
      const exact = docs.map((d) => ({ id: d.id, cos: cos(d.v) })).sort((a, b) => b.cos - a.cos);
      const res = await es.search({
        index,
        knn: { field: 'vector_description', query_vector: q, k: 10, num_candidates: 100 },
        size: 10,
        _source: false,
      });
      const hits = res.hits.hits.map((h) => ({ id: h._id!, score: h._score! }));
      expect(hits.map((h) => h.id)).toEqual(exact.slice(0, 10).map((e) => e.id));
      // Elasticsearch scores a cosine as (1 + cos) / 2; int8 scores alone are off in the third decimal.
      for (const h of hits) expect(h.score).toBeCloseTo((1 + exact.find((e) => e.id === h.id)!.cos) / 2, 5);
    },
  );

  test(
    'when indices are created, then they refresh every SEARCH_REFRESH_INTERVAL (the embedding cache ' +
      'every 30 s); an index an earlier release made with another interval gets it at the next start',
    async () => {
      const prefix = testName('kbrefresh');
      const logger = pino({ level: 'silent' });
      const interval = async (index: string) => {
        const res = await es.indices.getSettings({ index, name: 'index.refresh_interval', flat_settings: true });
        return Object.values(res).map((i) => (i.settings as Record<string, unknown>)['index.refresh_interval']);
      };
      const first = new IndexManager(es, logger, prefix, 'm', 8);
      await first.ensureAll();
      expect(await interval(first.alias('products'))).toEqual([SEARCH_REFRESH_INTERVAL]);
      expect(await interval(first.alias('entries'))).toEqual([SEARCH_REFRESH_INTERVAL]);
      expect(await interval(first.cacheIndex)).toEqual([CACHE_REFRESH_INTERVAL]);
      // As an earlier release left them: Elasticsearch's default of 1 s.
      await es.indices.putSettings({
        index: [first.alias('products'), first.cacheIndex],
        settings: { refresh_interval: '1s' },
      });
      await new IndexManager(es, logger, prefix, 'm', 8).ensureAll();
      expect(await interval(first.alias('products'))).toEqual([SEARCH_REFRESH_INTERVAL]);
      expect(await interval(first.cacheIndex)).toEqual([CACHE_REFRESH_INTERVAL]);
    },
  );

  test('when a reindex finishes, then the alias points at the new index, the old one is deleted and the data is there', async () => {
    const id = randomUUID();
    await h.client.call('IndexProducts', {
      caller: caller(tenant),
      products: [product({ id, tenant_id: tenant, version: 4, title: 'Before reindex' })],
    });
    const oldIndices = Object.keys(await es.indices.getAlias({ name: productsAlias() }));
    const begun = await h.client.call('BeginReindex', { caller: SYSTEM, kind: 'products' });
    expect(begun.alias).toBe(productsAlias());
    expect(begun.index.startsWith(`${productsAlias()}-`)).toBe(true);
    const res = await h.client.call('IndexProducts', {
      caller: SYSTEM,
      target_index: begun.index,
      products: [product({ id, tenant_id: tenant, version: 4, title: 'Before reindex', reuse_vectors: true })],
    });
    expect(res.results[0]).toMatchObject({ status: 'indexed', embeddings: 'reused' });
    // Not yet visible through the alias: the old index still answers.
    expect((await getDoc(id))?._index).toBe(oldIndices[0]);
    const finished = await h.client.call('FinishReindex', { caller: SYSTEM, kind: 'products', index: begun.index });
    expect(finished).toEqual({ alias: productsAlias(), index: begun.index, removed_indices: oldIndices });
    expect(Object.keys(await es.indices.getAlias({ name: productsAlias() }))).toEqual([begun.index]);
    expect(await es.indices.exists({ index: oldIndices[0]! })).toBe(false);
    const doc = await getDoc(id);
    expect(doc).toMatchObject({ _index: begun.index, _version: 4 });
    expect(doc?._source?.['title']).toBe('Before reindex');
  });

  test(
    'when products change while a reindex runs, then the new index ' +
      'gets the change and an older copy from the reindex is stale',
    async () => {
      const [changed, removed] = [randomUUID(), randomUUID()];
      await h.client.call('IndexProducts', {
        caller: caller(tenant),
        products: [
          product({ id: changed, tenant_id: tenant, version: 1, title: 'Old title' }),
          product({ id: removed, tenant_id: tenant, version: 1 }),
        ],
      });
      const abandoned = await h.client.call('BeginReindex', { caller: SYSTEM, kind: 'products' });
      const begun = await h.client.call('BeginReindex', { caller: SYSTEM, kind: 'products' });
      // A live write and a live delete during the reindex (no target_index: through the alias).
      await h.client.call('IndexProducts', {
        caller: caller(tenant),
        products: [product({ id: changed, tenant_id: tenant, version: 2, title: 'New title' })],
      });
      expect(
        (await h.client.call('DeleteProducts', { caller: caller(tenant), documents: [{ id: removed, version: 2 }] }))
          .deleted,
      ).toBe(1);
      // The reindex then copies what it read from MongoDB before those changes.
      const copy = await h.client.call('IndexProducts', {
        caller: SYSTEM,
        target_index: begun.index,
        products: [
          product({ id: changed, tenant_id: tenant, version: 1, title: 'Old title' }),
          product({ id: removed, tenant_id: tenant, version: 1 }),
        ],
      });
      expect(copy.results.map((r) => r.status)).toEqual(['stale', 'stale']);
      const finished = await h.client.call('FinishReindex', { caller: SYSTEM, kind: 'products', index: begun.index });
      expect(finished.removed_indices).toContain(abandoned.index);
      expect(await es.indices.exists({ index: abandoned.index })).toBe(false);
      expect((await getDoc(changed))?._source?.['title']).toBe('New title');
      expect(await getDoc(removed)).toBeUndefined();
    },
  );

  test('when reindex names a wrong kind or a foreign index, then it is INVALID_ARGUMENT', async () => {
    expect((await failure(h.client.call('BeginReindex', { caller: SYSTEM, kind: 'orders' }))).kind).toBe('invalid');
    expect(
      (await failure(h.client.call('FinishReindex', { caller: SYSTEM, kind: 'products', index: 'some-other-index' })))
        .kind,
    ).toBe('invalid');
    const err = await failure(
      h.client.call('IndexProducts', {
        caller: SYSTEM,
        target_index: 'elsewhere',
        products: [product({ id: randomUUID(), tenant_id: tenant })],
      }),
    );
    expect(err.kind).toBe('invalid');
  });
});

describe('an alias deleted from outside', () => {
  test('when the index behind the alias is deleted, then the next write recreates the alias with its mapping', async () => {
    const behind = Object.keys(await es.indices.getAlias({ name: productsAlias() }));
    await es.indices.delete({ index: behind });
    const id = randomUUID();
    const res = await h.client.call('IndexProducts', {
      caller: caller(tenant),
      products: [product({ id, tenant_id: tenant })],
    });
    expect(res.results[0]!.status).toBe('indexed');
    const now = Object.keys(await es.indices.getAlias({ name: productsAlias() }));
    expect(now).toHaveLength(1);
    expect(now[0]!.startsWith(`${productsAlias()}-`)).toBe(true);
    const mapping = await es.indices.getMapping({ index: productsAlias() });
    expect(mapping[now[0]!]!.mappings.properties?.['vector_description']).toMatchObject({
      type: 'dense_vector',
      similarity: 'cosine',
    });
  });
});

describe('outages', () => {
  test('when the embedder is down, then indexing answers UNAVAILABLE and writes nothing', async () => {
    const noModel = await startSimilarity({ ELASTICSEARCH_INDEX_PREFIX: h.prefix });
    try {
      await noModel.server.embedder.close();
      const [cached, fresh] = [randomUUID(), randomUUID()];
      const err = await failure(
        noModel.client.call('IndexProducts', {
          caller: caller(tenant),
          products: [
            product({ id: cached, tenant_id: tenant, title: 'A product' }),
            product({ id: fresh, tenant_id: tenant, text_description: `Never embedded ${fresh}` }),
          ],
        }),
      );
      expect(err.kind).toBe('unavailable');
      expect(err.message).toMatch(/embedding model/);
      expect(await getDoc(cached)).toBeUndefined();
      expect(await getDoc(fresh)).toBeUndefined();
    } finally {
      await noModel.stop();
    }
  });

  test('when Elasticsearch is down, then indexing and search answer UNAVAILABLE', async () => {
    const down = await startSimilarity({ ELASTICSEARCH_URL: 'http://127.0.0.1:9' });
    try {
      const index = await failure(
        down.client.call('IndexProducts', {
          caller: caller(tenant),
          products: [product({ id: randomUUID(), tenant_id: tenant })],
        }),
      );
      expect(index.kind).toBe('unavailable');
      expect(index.message).toMatch(/Elasticsearch/);
      const search = await failure(
        down.client.call('SearchProducts', { caller: caller(tenant), query: 'kettle', limit: 5 }),
      );
      expect(search.kind).toBe('unavailable');
    } finally {
      await down.stop();
    }
  });
});
