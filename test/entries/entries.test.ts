/**
 * Knowledge entries through the gateway: the response shape, defaults, updates, personal
 * notes, lists with filters and pages, deletes, the version history, bounds and bad input.
 */
import { startStack, uniqueId, type Stack } from '../support/stack';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ENTRIES = '/api/knowledge/knowledge-entries';
const RESPONSE_KEYS = [
  'category_id',
  'content',
  'created_at',
  'created_by_user_id',
  'embedding_model',
  'id',
  'language',
  'layer',
  'metadata',
  'search_keywords',
  'source',
  'source_reference',
  'summary',
  'tags',
  'tenant_id',
  'title',
  'translation_group_id',
  'type',
  'updated_at',
  'version',
  'visibility',
  'workspace_id',
];
const USER = '0b7a3f1e-2c4d-4e5f-8a9b-0c1d2e3f4a5b';
const OTHER_USER = '1c8b4f2e-3d5e-4f6a-9b0c-1d2e3f4a5b6c';

let stack: Stack;
const acme = uniqueId('acme');
const globex = uniqueId('globex');
let admin: string;
let agent: string;
let viewer: string;
let globexAdmin: string;
let category: string;
let otherCategory: string;
let globexCategory: string;

beforeAll(async () => {
  stack = await startStack();
  admin = await stack.tenantWithToken(acme, 'Admin', ['--user', USER]);
  agent = await stack.token(acme, 'Agent', ['--user', OTHER_USER]);
  viewer = await stack.token(acme, 'Viewer');
  globexAdmin = await stack.tenantWithToken(globex, 'Admin');
  category = (
    await stack.request(acme, '/api/knowledge/categories', { method: 'POST', token: admin, body: { name: 'Shipping' } })
  ).json.id;
  otherCategory = (
    await stack.request(acme, '/api/knowledge/categories', { method: 'POST', token: admin, body: { name: 'Returns' } })
  ).json.id;
  globexCategory = (
    await stack.request(globex, '/api/knowledge/categories', {
      method: 'POST',
      token: globexAdmin,
      body: { name: 'G' },
    })
  ).json.id;
});
afterAll(async () => {
  await stack?.stop();
});

const post = (body: unknown, token = admin, headers: Record<string, string> = {}, tenant = acme) =>
  stack.request(tenant, ENTRIES, { method: 'POST', token, body, headers });
const put = (id: string, body: unknown, token = admin, headers: Record<string, string> = {}) =>
  stack.request(acme, `${ENTRIES}/${id}`, { method: 'PUT', token, body, headers });
const get = (id: string, token = admin, tenant = acme) => stack.request(tenant, `${ENTRIES}/${id}`, { token });
const list = (query = '', token = admin) => stack.request(acme, `${ENTRIES}${query}`, { token });
/** embedding_model may be filled in by the background indexer between two reads. */
const noModel = (e: Record<string, unknown>) => ({ ...e, embedding_model: null });
const base = () => ({ title: 'How to ship', content: 'Use **DHL**.', category_id: category, visibility: 'internal' });
const count = async () => {
  let n = 0;
  let url: string | undefined = `${ENTRIES}?limit=500&include_expired=true`;
  while (url) {
    const res = await stack.request(acme, url, { token: admin });
    n += res.json.length;
    url = /<([^>]+)>; rel="next"/.exec(String(res.headers.link ?? ''))?.[1];
  }
  return n;
};

describe('create', () => {
  test('when an entry is created, then 201 with every field of the response shape, version 1 and updated_at == created_at', async () => {
    const res = await post({
      ...base(),
      similarity_text: 'anchor',
      project_ids: [USER],
      search_keywords: ['parcel'],
      tags: ['a'],
    });
    expect(res.status).toBe(201);
    const e = res.json;
    expect(Object.keys(e).sort()).toEqual(RESPONSE_KEYS);
    expect(e.id).toMatch(UUID);
    expect(e.translation_group_id).toMatch(UUID);
    expect(e.created_at).toMatch(UTC);
    expect(e.updated_at).toBe(e.created_at);
    expect(e).toMatchObject({
      tenant_id: acme,
      title: 'How to ship',
      content: 'Use **DHL**.',
      category_id: category,
      visibility: 'internal',
      type: 'knowledge',
      version: 1,
      language: 'de',
      source: 'manual',
      source_reference: null,
      summary: null,
      layer: null,
      tags: ['a'],
      workspace_id: null,
      created_by_user_id: USER,
      metadata: {},
      search_keywords: ['parcel'],
    });
    // Null until embedded; the write tries to embed at once (bounded), so normally it is set.
    expect([null, 'all-MiniLM-L6-v2-q']).toContain(e.embedding_model);
    expect(e).not.toHaveProperty('similarity_text');
    expect(e).not.toHaveProperty('project_ids');
    expect(res.headers.etag).toBe('"1"');
    expect(res.headers.location).toBe(`${ENTRIES}/${e.id}`);
    const got = await get(e.id);
    expect(got.status).toBe(200);
    expect({ ...got.json, embedding_model: null }).toEqual({ ...e, embedding_model: null });
    expect(got.headers.etag).toBe('"1"');
  });

  test('when every optional field is sent, then each is stored and answered', async () => {
    const res = await post({
      ...base(),
      summary: 'S',
      layer: 'L',
      tags: ['x', 'y'],
      language: 'en-GB',
      source: 'import',
      source_reference: 'ref-1',
      metadata: { anything: [1, 2] },
      type: 'knowledge',
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      summary: 'S',
      layer: 'L',
      tags: ['x', 'y'],
      language: 'en-GB',
      source: 'import',
      source_reference: 'ref-1',
      metadata: { anything: [1, 2] },
    });
  });

  test('when visibility is omitted, then 422 except for memory entries, which default to internal', async () => {
    const { visibility: _v, ...noVisibility } = base();
    const res = await post(noVisibility);
    expect(res.status).toBe(422);
    expect(res.json.detail[0]).toMatchObject({ loc: ['body', 'visibility'], type: 'missing' });
    const memory = await post({ ...noVisibility, type: 'memory' });
    expect(memory.status).toBe(201);
    expect(memory.json.visibility).toBe('internal');
  });

  test('when visibility personal is sent to the general route, then 422 naming the personal route', async () => {
    const res = await post({ ...base(), visibility: 'personal' });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['body', 'visibility']);
    expect(res.json.detail[0].msg).toContain('/knowledge-entries/personal');
  });

  test.each([
    ['process', { steps: [{ title: 'Pack' }, { title: 'Label', detail: 'A6' }] }],
    ['skill', { trigger_description: 'when asked about parcels', examples: ['where is my parcel'] }],
    ['memory', { expires_at: '2999-01-01T01:00:00+01:00' }],
    ['memory', { expires_at: '2999-01-01' }],
    ['glossary', { term: 'SKU', synonyms: ['article number', ' article number ', 'item no'] }],
    ['bootstrap', { free: { form: true } }],
  ])('when a %s entry has valid metadata, then it is stored normalised', async (type, metadata) => {
    const res = await post({ ...base(), type, metadata });
    expect(res.status).toBe(201);
    expect(res.json.type).toBe(type);
    if (type === 'memory') expect(res.json.metadata).toEqual({ expires_at: '2999-01-01T00:00:00.000Z' });
    else if (type === 'glossary')
      expect(res.json.metadata).toEqual({ term: 'SKU', synonyms: ['article number', 'item no'] });
    else expect(res.json.metadata).toEqual(metadata);
  });

  test.each([
    ['process', {}, ['body', 'metadata', 'steps']],
    ['process', { steps: [] }, ['body', 'metadata', 'steps']],
    ['process', { steps: [{ detail: 'no title' }] }, ['body', 'metadata', 'steps', 0, 'title']],
    ['skill', {}, ['body', 'metadata', 'trigger_description']],
    ['skill', { trigger_description: 'x', colour: 'red' }, ['body', 'metadata', 'colour']],
    ['memory', { expires_at: 'tomorrow' }, ['body', 'metadata', 'expires_at']],
    ['glossary', { synonyms: 'not a list' }, ['body', 'metadata', 'synonyms']],
  ])(
    'when %s metadata does not match its schema (%j), then 422 naming the field and nothing is written',
    async (type, metadata, loc) => {
      const before = await count();
      const res = await post({ ...base(), type, metadata });
      expect(res.status).toBe(422);
      expect(res.json.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc })]));
      expect(await count()).toBe(before);
    },
  );

  test('when the category does not exist or belongs to another tenant, then 404 "Category not found"', async () => {
    for (const category_id of ['2b1e9d4c-8a6f-4e0b-9f51-3c7d2a1b0e99', globexCategory]) {
      const res = await post({ ...base(), category_id });
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ detail: 'Category not found' });
    }
  });

  test('when the audit headers are sent, then the version history records them', async () => {
    const e = (await post(base(), admin, { 'X-Audit-Source': 'mcp', 'X-Client-Id': 'client-7' })).json;
    await put(e.id, { title: 'Renamed' }, agent);
    const res = await stack.request(acme, `${ENTRIES}/${e.id}/versions`, { token: admin });
    expect(res.status).toBe(200);
    expect(res.json).toHaveLength(2);
    expect(res.json[0]).toMatchObject({
      version: 1,
      action: 'create',
      audit_source: 'mcp',
      client_id: 'client-7',
      changed_by_user_id: USER,
    });
    expect(res.json[0].entry.title).toBe('How to ship');
    expect(res.json[1]).toMatchObject({
      version: 2,
      action: 'update',
      audit_source: 'api',
      client_id: null,
      changed_by_user_id: OTHER_USER,
    });
    expect(res.json[1].entry).toMatchObject({ title: 'Renamed', version: 2 });
  });
});

describe('update', () => {
  test('when fields are sent, then only they change, version goes up by one and updated_at moves', async () => {
    const e = (await post({ ...base(), summary: 'keep', tags: ['t'], layer: 'l1' })).json;
    const res = await put(e.id, { title: 'New title' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ...e, title: 'New title', version: 2, updated_at: expect.any(String) });
    expect(res.json.created_at).toBe(e.created_at);
    expect(Date.parse(res.json.updated_at)).toBeGreaterThan(Date.parse(e.updated_at));
    expect(res.headers.etag).toBe('"2"');
    const again = await put(e.id, { content: 'c2', tags: [] });
    expect(again.json).toMatchObject({ title: 'New title', content: 'c2', tags: [], summary: 'keep', version: 3 });
  });

  test('when a nullable field is sent as null, then it is cleared; null on a required field is a 422', async () => {
    const e = (await post({ ...base(), summary: 'S', layer: 'L', source_reference: 'r' })).json;
    const res = await put(e.id, { summary: null, layer: null, source_reference: null });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ summary: null, layer: null, source_reference: null });
    for (const field of ['title', 'content', 'category_id', 'visibility', 'tags', 'metadata']) {
      const bad = await put(e.id, { [field]: null });
      expect(bad.status).toBe(422);
      expect(bad.json.detail[0].loc).toEqual(['body', field]);
    }
    expect((await get(e.id)).json.version).toBe(2);
  });

  test('when type is sent, then 422 and the entry is unchanged', async () => {
    const e = (await post(base())).json;
    const res = await put(e.id, { type: 'process', title: 'x' });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['body', 'type']);
    expect(noModel((await get(e.id)).json)).toEqual(noModel(e));
  });

  test('when metadata is sent, then it is validated against the stored type (409 naming the problem otherwise)', async () => {
    const p = (await post({ ...base(), type: 'process', metadata: { steps: [{ title: 'a' }] } })).json;
    const refused = await put(p.id, { metadata: { trigger_description: 'x' } });
    expect(refused.status).toBe(409);
    expect(refused.json.detail).toContain('process');
    const ok = await put(p.id, { metadata: { steps: [{ title: 'b' }] } });
    expect(ok.status).toBe(200);
    expect(ok.json.metadata).toEqual({ steps: [{ title: 'b' }] });
  });

  test('when the category is changed to one that does not exist, then 404 and nothing changes', async () => {
    const e = (await post(base())).json;
    const res = await put(e.id, { category_id: '2b1e9d4c-8a6f-4e0b-9f51-3c7d2a1b0e99', title: 'x' });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ detail: 'Category not found' });
    expect((await get(e.id)).json.title).toBe(e.title);
    expect((await put(e.id, { category_id: otherCategory })).json.category_id).toBe(otherCategory);
  });

  test('when If-Match names the current version, then the update applies; another version is 412', async () => {
    const e = (await post(base())).json;
    const stale = await put(e.id, { title: 'x' }, admin, { 'If-Match': '"7"' });
    expect(stale.status).toBe(412);
    expect(typeof stale.json.detail).toBe('string');
    const garbage = await put(e.id, { title: 'x' }, admin, { 'If-Match': 'nonsense' });
    expect(garbage.status).toBe(412);
    const ok = await put(e.id, { title: 'x' }, admin, { 'If-Match': '"1"' });
    expect(ok.status).toBe(200);
    expect(ok.headers.etag).toBe('"2"');
    expect((await put(e.id, { title: 'y' }, admin, { 'If-Match': '*' })).status).toBe(200);
  });

  test('when the entry does not exist or is another tenant\'s, then 404 "Entry not found"', async () => {
    const e = (await post(base())).json;
    const other = await stack.request(globex, `${ENTRIES}/${e.id}`, {
      method: 'PUT',
      token: globexAdmin,
      body: { title: 'x' },
    });
    expect(other.status).toBe(404);
    expect(other.json).toEqual({ detail: 'Entry not found' });
    expect((await put('2b1e9d4c-8a6f-4e0b-9f51-3c7d2a1b0e99', { title: 'x' })).status).toBe(404);
    expect((await get(e.id, globexAdmin, globex)).status).toBe(404);
  });
});

describe('personal notes', () => {
  test(
    'when a personal note is created, then it is type knowledge, ' +
      'visibility personal, free-form metadata, seen only by its owner',
    async () => {
      const res = await stack.request(acme, `${ENTRIES}/personal`, {
        method: 'POST',
        token: agent,
        body: { title: 'Mine', content: 'secret', category_id: category, metadata: { any: { thing: 1 } } },
      });
      expect(res.status).toBe(201);
      expect(res.json).toMatchObject({
        type: 'knowledge',
        visibility: 'personal',
        metadata: { any: { thing: 1 } },
        created_by_user_id: OTHER_USER,
        version: 1,
      });
      const id = res.json.id;
      expect((await get(id, agent)).status).toBe(200);
      expect((await get(id, admin)).status).toBe(404);
      expect((await list('?visibility=personal', admin)).json.map((e: { id: string }) => e.id)).not.toContain(id);
      expect((await list('?visibility=personal', agent)).json.map((e: { id: string }) => e.id)).toContain(id);
      expect((await put(id, { title: 'x' }, admin)).status).toBe(404);
      const own = await put(id, { title: 'still mine' }, agent);
      expect(own.status).toBe(200);
      // A personal note stays personal: a conflict with what the entry is (409), not a bad body.
      expect((await put(id, { visibility: 'internal' }, agent)).status).toBe(409);
    },
  );

  test('when type or visibility is sent to the personal route, then 422', async () => {
    for (const extra of [{ type: 'skill' }, { visibility: 'public' }]) {
      const res = await stack.request(acme, `${ENTRIES}/personal`, {
        method: 'POST',
        token: agent,
        body: { title: 't', content: 'c', category_id: category, ...extra },
      });
      expect(res.status).toBe(422);
    }
  });

  test('when a token has no user, then its personal notes belong to the token', async () => {
    const a = await stack.token(acme, 'Agent');
    const b = await stack.token(acme, 'Agent');
    const note = (
      await stack.request(acme, `${ENTRIES}/personal`, {
        method: 'POST',
        token: a,
        body: { title: 't', content: 'c', category_id: category },
      })
    ).json;
    expect(note.created_by_user_id).toBeNull();
    expect((await get(note.id, a)).status).toBe(200);
    expect((await get(note.id, b)).status).toBe(404);
  });
});

describe('list', () => {
  let t: string;
  let token: string;
  let cat1: string;
  let cat2: string;
  const project = '3e0d6a4b-5f7a-4b8c-9d0e-1f2a3b4c5d6e';
  beforeAll(async () => {
    t = uniqueId('lists');
    token = await stack.tenantWithToken(t, 'Admin');
    cat1 = (await stack.request(t, '/api/knowledge/categories', { method: 'POST', token, body: { name: 'c1' } })).json
      .id;
    cat2 = (await stack.request(t, '/api/knowledge/categories', { method: 'POST', token, body: { name: 'c2' } })).json
      .id;
  });
  const mk = (body: Record<string, unknown>) =>
    stack.request(t, ENTRIES, {
      method: 'POST',
      token,
      body: { title: 't', content: 'c', category_id: cat1, visibility: 'internal', ...body },
    });
  const ids = async (query: string) =>
    (await stack.request(t, `${ENTRIES}${query}`, { token })).json.map((e: { id: string }) => e.id);

  test('when filters are given, then each narrows the list; expired memories only with include_expired', async () => {
    const a = (await mk({ layer: 'L1', project_ids: [project] })).json.id;
    const b = (await mk({ category_id: cat2, type: 'glossary', visibility: 'public' })).json.id;
    const expired = (await mk({ type: 'memory', metadata: { expires_at: '2000-01-01T00:00:00Z' } })).json.id;
    const live = (await mk({ type: 'memory', metadata: { expires_at: '2999-01-01T00:00:00Z' } })).json.id;
    expect(await ids(`?category_id=${cat2}`)).toEqual([b]);
    expect(await ids('?type=glossary')).toEqual([b]);
    expect(await ids(`?project_id=${project}`)).toEqual([a]);
    expect(await ids('?visibility=public')).toEqual([b]);
    expect(await ids('?layer=L1')).toEqual([a]);
    expect(await ids('?type=memory')).toEqual([live]);
    expect((await ids('?type=memory&include_expired=true')).sort()).toEqual([expired, live].sort());
    expect(await ids('')).not.toContain(expired);
    expect(await ids('?include_expired=false')).not.toContain(expired);
  });

  test('when listed, then ordered by updated_at descending; an edit moves an entry to the front', async () => {
    const first = (await mk({ title: 'first' })).json.id;
    const second = (await mk({ title: 'second' })).json.id;
    let all = await ids('?include_expired=true');
    expect(all.indexOf(second)).toBeLessThan(all.indexOf(first));
    await stack.request(t, `${ENTRIES}/${first}`, { method: 'PUT', token, body: { title: 'edited' } });
    all = await ids('?include_expired=true');
    expect(all[0]).toBe(first);
  });

  test('when limit is given, then pages follow the Link rel="next" header until every entry was seen once', async () => {
    for (let i = 0; i < 7; i++) await mk({ title: `page ${i}` });
    const total = (await ids('?include_expired=true&limit=500')).length;
    const seen: string[] = [];
    let url: string | undefined = `${ENTRIES}?limit=3&include_expired=true`;
    let pages = 0;
    while (url) {
      const res = await stack.request(t, url, { token });
      expect(res.status).toBe(200);
      expect(Array.isArray(res.json)).toBe(true);
      expect(res.json.length).toBeLessThanOrEqual(3);
      seen.push(...res.json.map((e: { id: string }) => e.id));
      url = /<([^>]+)>; rel="next"/.exec(String(res.headers.link ?? ''))?.[1];
      if (url) expect(url).toContain('limit=3');
      pages += 1;
    }
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    expect(pages).toBe(Math.ceil(total / 3));
    expect(seen).toEqual(await ids('?include_expired=true&limit=500'));
  });

  test.each([
    ['limit=0', 'limit'],
    ['limit=501', 'limit'],
    ['limit=abc', 'limit'],
    ['type=nope', 'type'],
    ['visibility=secret', 'visibility'],
    ['category_id=123', 'category_id'],
    ['project_id=x', 'project_id'],
    ['include_expired=maybe', 'include_expired'],
    ['cursor=%25%25', 'cursor'],
  ])('when the query has %s, then 422 naming it', async (query, name) => {
    const res = await stack.request(t, `${ENTRIES}?${query}`, { token });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['query', name]);
  });

  test.each([
    ['include_expired=-0', 'include_expired', 'bool_parsing'],
    ['include_expired=0', 'include_expired', 'bool_parsing'],
    ['include_expired=1', 'include_expired', 'bool_parsing'],
    ['include_expired=TRUE', 'include_expired', 'bool_parsing'],
    ['include_expired=False', 'include_expired', 'bool_parsing'],
    ['include_expired=yes', 'include_expired', 'bool_parsing'],
    ['include_expired=', 'include_expired', 'bool_parsing'],
    ['limit=1e400', 'limit', 'int_parsing'],
    ['limit=1e2', 'limit', 'int_parsing'],
    ['limit=10.5', 'limit', 'int_parsing'],
    ['limit=0x10', 'limit', 'int_parsing'],
    ['limit=%2B5', 'limit', 'int_parsing'],
    ['limit=%205', 'limit', 'int_parsing'],
    ['limit=', 'limit', 'int_parsing'],
    ['limit=5&limit=6', 'limit', 'int_type'],
    ['limit=-0', 'limit', 'greater_than_equal'],
    ['limit=-1', 'limit', 'greater_than_equal'],
  ])(
    'when the query spells a boolean or an integer as %s (not true/false, not plain digits within the bounds), then 422 naming it',
    async (query, name, type) => {
      const res = await stack.request(t, `${ENTRIES}?${query}`, { token });
      expect(res.status).toBe(422);
      expect(res.json.detail).toEqual([expect.objectContaining({ loc: ['query', name], type })]);
    },
  );

  test('when limit has more digits than a double holds, then 422 saying its bound', async () => {
    const res = await stack.request(t, `${ENTRIES}?limit=${'9'.repeat(400)}`, { token });
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual([
      { loc: ['query', 'limit'], msg: 'Input should be less than or equal to 500', type: 'less_than_equal' },
    ]);
  });

  test('when a bad boolean and a bad integer come together, then the 422 names both', async () => {
    const res = await stack.request(t, `${ENTRIES}?include_expired=-0&limit=1e400&type=nope`, { token });
    expect(res.status).toBe(422);
    expect(res.json.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual(
      expect.arrayContaining([
        ['query', 'include_expired'],
        ['query', 'limit'],
        ['query', 'type'],
      ]),
    );
  });

  test('when limit is 1 or 500, then it is accepted', async () => {
    expect((await stack.request(t, `${ENTRIES}?limit=1`, { token })).json).toHaveLength(1);
    expect((await stack.request(t, `${ENTRIES}?limit=500`, { token })).status).toBe(200);
  });

  test("when another tenant lists, then it never sees this tenant's entries", async () => {
    const mine = await ids('?include_expired=true');
    const theirs = (await stack.request(acme, `${ENTRIES}?include_expired=true&limit=500`, { token: admin })).json.map(
      (e: { id: string }) => e.id,
    );
    expect(mine.filter((id: string) => theirs.includes(id))).toEqual([]);
  });
});

describe('delete', () => {
  test('when an entry is deleted, then 204 and it is gone; If-Match is honoured', async () => {
    const e = (await post(base())).json;
    expect(
      (
        await stack.request(acme, `${ENTRIES}/${e.id}`, {
          method: 'DELETE',
          token: admin,
          headers: { 'If-Match': '"5"' },
        })
      ).status,
    ).toBe(412);
    const res = await stack.request(acme, `${ENTRIES}/${e.id}`, {
      method: 'DELETE',
      token: admin,
      headers: { 'If-Match': '"1"' },
    });
    expect(res.status).toBe(204);
    expect((await get(e.id)).status).toBe(404);
    expect((await stack.request(acme, `${ENTRIES}/${e.id}`, { method: 'DELETE', token: admin })).status).toBe(404);
  });

  test('when a Viewer deletes, then 403 and the entry stays', async () => {
    const e = (await post({ ...base(), visibility: 'public' })).json;
    expect((await stack.request(acme, `${ENTRIES}/${e.id}`, { method: 'DELETE', token: viewer })).status).toBe(403);
    expect((await get(e.id)).status).toBe(200);
  });
});

describe('bounds', () => {
  test.each([
    ['title', 'x'.repeat(1), 201],
    ['title', 'x'.repeat(500), 201],
    ['title', '', 422],
    ['title', 'x'.repeat(501), 422],
    ['content', 'x', 201],
    ['content', '', 422],
    ['layer', '', 201],
    ['layer', 'l'.repeat(50), 201],
    ['layer', 'l'.repeat(51), 422],
    ['language', 'de', 201],
    ['language', 'de-CH', 201],
    ['language', 'd', 422],
    ['language', 'de-CHX', 422],
    ['language', '', 422],
  ])('when %s has length %#, then the create answers the expected status', async (name, value, status) => {
    const before = await count();
    const res = await post({ ...base(), [name]: value });
    expect(res.status).toBe(status);
    if (status === 422) {
      expect(res.json.detail[0].loc).toEqual(['body', name]);
      expect(await count()).toBe(before);
    } else {
      expect(res.json[name]).toBe(value);
    }
  });

  test.each([
    ['title', ''],
    ['title', 'x'.repeat(501)],
    ['content', ''],
    ['layer', 'l'.repeat(51)],
  ])('when an update sets %s out of bounds, then 422 and nothing changes', async (name, value) => {
    const e = (await post(base())).json;
    const res = await put(e.id, { [name]: value });
    expect(res.status).toBe(422);
    expect(noModel((await get(e.id)).json)).toEqual(noModel(e));
  });
});

describe('bad input', () => {
  test.each([
    ['a title that is a number', { title: 5 }, ['body', 'title'], 'string_type'],
    ['an unknown visibility', { visibility: 'secret' }, ['body', 'visibility'], 'enum'],
    ['an unknown type', { type: 'recipe' }, ['body', 'type'], 'enum'],
    ['an unknown source', { source: 'fax' }, ['body', 'source'], 'enum'],
    ['a malformed category_id', { category_id: 'abc' }, ['body', 'category_id'], 'uuid_parsing'],
    ['metadata that is a list', { metadata: [1] }, ['body', 'metadata'], 'dict_type'],
    ['metadata that is a string', { metadata: 'x' }, ['body', 'metadata'], 'dict_type'],
    ['tags that are not strings', { tags: [1] }, ['body', 'tags', 0], 'string_type'],
    ['project_ids that are not uuids', { project_ids: ['x'] }, ['body', 'project_ids', 0], 'uuid_parsing'],
    ['an unknown field', { colour: 'red' }, ['body', 'colour'], 'extra_forbidden'],
  ])('when the body has %s, then 422 naming the field and nothing is written', async (_label, patch, loc, type) => {
    const before = await count();
    const res = await post({ ...base(), ...patch });
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
    expect(await count()).toBe(before);
  });

  test('when the JSON has a duplicate key, then 400 and nothing is written', async () => {
    const before = await count();
    const raw = `{"title":"a","content":"c","category_id":"${category}","visibility":"internal","title":"b"}`;
    const res = await post(raw);
    expect(res.status).toBe(400);
    expect(res.json.detail).toContain('duplicate key "title"');
    const nested = await post(
      `{"title":"a","content":"c","category_id":"${category}","visibility":"internal","metadata":{"k":1,"k":2}}`,
    );
    expect(nested.status).toBe(400);
    expect(await count()).toBe(before);
    // Equal keys in different objects are fine.
    expect(
      (
        await post(
          `{"title":"a","content":"c","category_id":"${category}","visibility":"internal","metadata":{"title":{"title":1}}}`,
        )
      ).status,
    ).toBe(201);
  });

  test('when the JSON is malformed, the body too large or not JSON, then 400, 413 and 415', async () => {
    expect((await post('{"title": ')).status).toBe(400);
    expect((await post({ ...base(), content: 'x'.repeat(1_100_000) })).status).toBe(413);
    expect((await post('title=x', admin, { 'Content-Type': 'text/plain' })).status).toBe(415);
  });

  test('when the path id is not a uuid, then 422 at ["path", "entry_id"]', async () => {
    const res = await get('nope');
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['path', 'entry_id']);
  });
});

describe('OpenAPI', () => {
  test('when the document is fetched, then the entry routes are there and the extensions are marked', async () => {
    const doc = (await stack.request(acme, '/api/knowledge/openapi.json')).json;
    expect(doc.paths['/api/knowledge/knowledge-entries'].post['x-extension']).toBeUndefined();
    expect(doc.paths['/api/knowledge/knowledge-entries/{entry_id}'].get['x-extension']).toBe(true);
    expect(doc.paths['/api/knowledge/knowledge-entries/{entry_id}'].delete['x-extension']).toBe(true);
    expect(doc.paths['/api/knowledge/knowledge-entries/{entry_id}/versions'].get['x-extension']).toBe(true);
    expect(doc.paths['/api/knowledge/knowledge-entries/{entry_id}/translations'].get['x-extension']).toBe(true);
    expect(doc.paths['/api/knowledge/search/entries'].post['x-extension']).toBe(true);
    expect(doc.components.schemas.KnowledgeEntryCreate.properties.title).toMatchObject({
      minLength: 1,
      maxLength: 500,
    });
  });
});
