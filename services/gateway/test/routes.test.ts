/** What the routes check and pass on: validation, the requests they make, and the answers they shape. */
import { startGateway, entryMessage, UUID, type TestGateway } from './support/gateway';

let gw: TestGateway;
const ENTRIES = '/api/knowledge/knowledge-entries';

beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

const lastRequest = (method: string) => gw.calls.filter((c) => c.method === method).at(-1)?.request;

describe('validation', () => {
  test('when a required body field is missing, then 422 locates it in the body and the service is not called', async () => {
    const before = gw.calls.length;
    const res = await gw.request(ENTRIES, { body: { content: 'c', category_id: UUID } });
    expect(res.status).toBe(422);
    expect(res.json.detail).toContainEqual({ loc: ['body', 'title'], msg: 'Field required', type: 'missing' });
    expect(gw.calls.slice(before).map((c) => c.method)).not.toContain('CreateEntry');
  });

  test('when a body field is not allowed, then 422 locates it', async () => {
    const res = await gw.request(ENTRIES, {
      body: { title: 't', content: 'c', category_id: UUID, visibility: 'internal', colour: 'red' },
    });
    expect(res.status).toBe(422);
    expect(res.json.detail.map((i: { loc: unknown[] }) => i.loc)).toContainEqual(['body', 'colour']);
  });

  test('when a query integer is not written in digits, then 422 int_parsing at that parameter', async () => {
    const res = await gw.request(`${ENTRIES}?limit=1e2`);
    expect([res.status, res.json.detail]).toEqual([
      422,
      [
        {
          loc: ['query', 'limit'],
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          type: 'int_parsing',
        },
      ],
    ]);
  });

  test('when a query integer is over its bound, then 422 says the bound', async () => {
    const res = await gw.request(`${ENTRIES}?limit=501`);
    expect(res.status).toBe(422);
    expect(res.json.detail[0]).toMatchObject({ loc: ['query', 'limit'], type: 'less_than_equal' });
  });

  test('when a path id is not a uuid, then 422 at the path parameter', async () => {
    const res = await gw.request(`${ENTRIES}/not-a-uuid`);
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['path', 'entry_id']);
  });

  test('when the caller is anonymous, then authentication answers before validation', async () => {
    const res = await gw.request(`${ENTRIES}/not-a-uuid`, { token: null });
    expect(res.status).toBe(401);
  });
});

describe('entries', () => {
  test(
    'when the knowledge service returns an entry, then unset optional ' +
      'fields are nulls, metadata an object, keys in the interface order',
    async () => {
      gw.knowledge.GetEntry = () => entryMessage({ summary: 'Short' });
      const res = await gw.request(`${ENTRIES}/${UUID}`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.json)).toEqual([
        'id',
        'tenant_id',
        'title',
        'content',
        'category_id',
        'visibility',
        'type',
        'version',
        'language',
        'translation_group_id',
        'source',
        'source_reference',
        'embedding_model',
        'created_at',
        'updated_at',
        'summary',
        'layer',
        'tags',
        'workspace_id',
        'created_by_user_id',
        'metadata',
        'search_keywords',
      ]);
      expect(res.json).toMatchObject({
        summary: 'Short',
        layer: null,
        source_reference: null,
        workspace_id: null,
        metadata: { a: 1 },
      });
      expect(res.headers.etag).toBe('"3"');
    },
  );

  test('when an entry is created, then 201 with its ETag and Location, and the input names every sent field', async () => {
    gw.knowledge.CreateEntry = () => entryMessage({ version: 1 });
    const res = await gw.request(ENTRIES, {
      body: {
        title: 't',
        content: 'c',
        category_id: UUID,
        visibility: 'internal',
        summary: null,
        metadata: { k: 'v' },
      },
    });
    expect([res.status, res.headers.etag, res.headers.location]).toEqual([201, '"1"', `${ENTRIES}/${UUID}`]);
    expect(lastRequest('CreateEntry')).toMatchObject({
      personal: false,
      input: {
        sent_fields: ['title', 'content', 'category_id', 'visibility', 'summary', 'metadata_json'],
        title: 't',
        metadata_json: '{"k":"v"}',
      },
    });
    expect(lastRequest('CreateEntry')?.input).not.toHaveProperty('summary');
  });

  test('when a personal note is created, then the same call carries the personal flag', async () => {
    gw.knowledge.CreateEntry = () => entryMessage({ visibility: 'personal', version: 1 });
    const res = await gw.request(`${ENTRIES}/personal`, { body: { title: 't', content: 'c', category_id: UUID } });
    expect(res.status).toBe(201);
    expect(lastRequest('CreateEntry')).toMatchObject({ personal: true });
  });

  test('when If-Match is an ETag, then the update is conditioned on that version', async () => {
    gw.knowledge.UpdateEntry = () => entryMessage({ version: 4 });
    const res = await gw.request(`${ENTRIES}/${UUID}`, {
      method: 'PUT',
      body: { title: 'x' },
      headers: { 'If-Match': 'W/"3"' },
    });
    expect([res.status, res.headers.etag]).toEqual([200, '"4"']);
    expect(lastRequest('UpdateEntry')).toMatchObject({ entry_id: UUID, expected_version: 3 });
  });

  test('when If-Match is not an ETag, then 412 and no write', async () => {
    const before = gw.calls.length;
    const res = await gw.request(`${ENTRIES}/${UUID}`, { method: 'DELETE', headers: { 'If-Match': 'yesterday' } });
    expect([res.status, res.json]).toEqual([412, { detail: 'If-Match must be an ETag of this entry, e.g. "3"' }]);
    expect(gw.calls.slice(before).map((c) => c.method)).not.toContain('DeleteEntry');
  });

  test('when the list has a next page, then the Link header carries the filters with the new cursor', async () => {
    gw.knowledge.ListEntries = () => ({ entries: [entryMessage()], next_cursor: 'c2' });
    const res = await gw.request(`${ENTRIES}?type=skill&limit=1&cursor=c1&layer=`);
    expect(res.status).toBe(200);
    expect(res.headers.link).toBe(`<${ENTRIES}?type=skill&limit=1&layer=&cursor=c2>; rel="next"`);
    expect(lastRequest('ListEntries')).toEqual({
      caller: expect.any(Object),
      type: 'skill',
      layer: '',
      cursor: 'c1',
      include_expired: false,
      limit: 1,
    });
  });

  test('when the list is complete, then there is no Link header', async () => {
    gw.knowledge.ListEntries = () => ({ entries: [], next_cursor: '' });
    const res = await gw.request(ENTRIES);
    expect([res.status, res.json, res.headers.link]).toEqual([200, [], undefined]);
    expect(lastRequest('ListEntries')).toMatchObject({ include_expired: false, limit: 100 });
  });

  test('when versions are listed, then each carries its author fields as nulls when unset and the entry as a view', async () => {
    gw.knowledge.ListEntryVersions = () => ({
      versions: [
        {
          version: 1,
          action: 'create',
          changed_at: '2026-01-01T00:00:00.000Z',
          audit_source: 'api',
          entry: entryMessage({ version: 1 }),
        },
      ],
    });
    const res = await gw.request(`${ENTRIES}/${UUID}/versions`);
    expect(res.json[0]).toMatchObject({
      version: 1,
      changed_by_user_id: null,
      client_id: null,
      entry: { version: 1, summary: null },
    });
  });
});

describe('categories and search', () => {
  test('when a category update sends null, then the field is named as sent but left unset', async () => {
    gw.knowledge.UpdateCategory = () => ({
      id: UUID,
      tenant_id: 'acme',
      name: 'n',
      sort_order: 0,
      created_at: 'a',
      updated_at: 'b',
    });
    const res = await gw.request(`/api/knowledge/categories/${UUID}`, {
      method: 'PUT',
      body: { parent_id: null, name: 'n' },
    });
    expect(res.json).toEqual({
      id: UUID,
      tenant_id: 'acme',
      name: 'n',
      description: null,
      parent_id: null,
      sort_order: 0,
      created_at: 'a',
      updated_at: 'b',
    });
    expect(lastRequest('UpdateCategory')).toEqual({
      caller: expect.any(Object),
      category_id: UUID,
      sent_fields: ['parent_id', 'name'],
      name: 'n',
    });
  });

  test('when a category is created, then 201 with its Location', async () => {
    gw.knowledge.CreateCategory = () => ({
      id: UUID,
      tenant_id: 'acme',
      name: 'n',
      sort_order: 0,
      created_at: 'a',
      updated_at: 'b',
    });
    const res = await gw.request('/api/knowledge/categories', { body: { name: 'n', description: null } });
    expect([res.status, res.headers.location]).toEqual([201, `/api/knowledge/categories/${UUID}`]);
    expect(lastRequest('CreateCategory')).toEqual({ caller: expect.any(Object), name: 'n', sort_order: 0 });
  });

  test('when entries are searched, then the defaults are sent and each hit holds the entry view', async () => {
    gw.knowledge.SearchEntries = () => ({
      hits: [{ entry: entryMessage(), score: 0.5, score_sources: { keyword: 0.5 } }],
    });
    const res = await gw.request('/api/knowledge/search/entries', { body: { query: 'returns' } });
    expect(res.json).toEqual([
      {
        entry: expect.objectContaining({ id: UUID, metadata: { a: 1 } }),
        score: 0.5,
        score_sources: { keyword: 0.5 },
        passages: [],
      },
    ]);
    expect(lastRequest('SearchEntries')).toEqual({
      caller: expect.any(Object),
      query: 'returns',
      limit: 10,
      types: [],
      passages: 3,
      min_relevance: 0,
    });
  });
});

describe('products', () => {
  const product = {
    id: UUID,
    tenant_id: 'acme',
    site_id: UUID,
    title: 'Mug',
    attributes_json: '',
    properties_json: '',
    price_current: '19.90',
    price_on_request: false,
    currency: 'EUR',
    additional_images: [],
    rating_count: 0,
    language: 'de',
    is_variant: false,
    is_parent: false,
    source: 'api',
    created_at: 'a',
    updated_at: 'b',
    search_keywords: [],
    has_similarity_anchor: false,
  };

  test('when a product body has decimals, then they reach the catalog digit for digit, as strings', async () => {
    gw.catalog.UpsertProduct = () => ({ status: 'created', product, embeddings: 'pending' });
    const raw =
      '{"title":"Mug","language":"de","price_current":19.90,"price_msrp":12345678901234567890.125,"rating_average":4.50}';
    const res = await gw.request('/api/knowledge/products?site_id=shop', { body: raw });
    expect([res.status, res.headers['x-embeddings'], res.json.price_current]).toEqual([201, 'pending', '19.90']);
    const sent = JSON.parse(lastRequest('UpsertProduct')?.product_json as string);
    expect([sent.price_current, sent.price_msrp, sent.rating_average]).toEqual([
      '19.90',
      '12345678901234567890.125',
      '4.50',
    ]);
  });
});
