/**
 * The vertical slice of the foundation, end to end: gateway → knowledge service → MongoDB,
 * with authentication, tenant isolation and the 401/403/404/422 paths.
 */
import { startStack, uniqueId, type Stack } from '../support/stack';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let stack: Stack;
const acme = uniqueId('acme');
const globex = uniqueId('globex');
let acmeAdmin: string;
let acmeViewer: string;
let globexAdmin: string;

beforeAll(async () => {
  stack = await startStack();
  acmeAdmin = await stack.tenantWithToken(acme, 'Admin');
  acmeViewer = await stack.token(acme, 'Viewer');
  globexAdmin = await stack.tenantWithToken(globex, 'Admin');
});
afterAll(async () => {
  await stack?.stop();
});

const create = (tenant: string, token: string, body: unknown, headers: Record<string, string> = {}) =>
  stack.request(tenant, '/api/knowledge/categories', { method: 'POST', token, body, headers });

describe('categories', () => {
  test('when a category is created, then it is answered 201 with every field of the interface', async () => {
    const res = await create(acme, acmeAdmin, { name: 'Shipping' });
    expect(res.status).toBe(201);
    const c = res.json;
    expect(Object.keys(c).sort()).toEqual([
      'created_at',
      'description',
      'id',
      'name',
      'parent_id',
      'sort_order',
      'tenant_id',
      'updated_at',
    ]);
    expect(c.id).toMatch(UUID);
    expect(c).toMatchObject({ tenant_id: acme, name: 'Shipping', description: null, parent_id: null, sort_order: 0 });
    expect(c.created_at).toMatch(UTC);
    expect(c.updated_at).toBe(c.created_at);
    expect(res.headers.location).toBe(`/api/knowledge/categories/${c.id}`);

    const got = await stack.request(acme, `/api/knowledge/categories/${c.id}`, { token: acmeViewer });
    expect(got.status).toBe(200);
    expect(got.json).toEqual(c);
  });

  test('when categories are listed, then they come ordered by sort_order then name, and parent_id selects direct children', async () => {
    const tenant = uniqueId('order');
    const token = await stack.tenantWithToken(tenant);
    const b = (await create(tenant, token, { name: 'Beta', sort_order: 1 })).json;
    const a = (await create(tenant, token, { name: 'Alpha', sort_order: 1 })).json;
    const z = (await create(tenant, token, { name: 'Zulu', sort_order: 0, description: 'first' })).json;
    const child = (await create(tenant, token, { name: 'Child', parent_id: a.id })).json;
    await create(tenant, token, { name: 'Grandchild', parent_id: child.id });

    const all = await stack.request(tenant, '/api/knowledge/categories', { token });
    expect(all.status).toBe(200);
    expect(all.json.map((x: { name: string }) => x.name)).toEqual(['Child', 'Grandchild', 'Zulu', 'Alpha', 'Beta']);
    expect(all.json.find((x: { id: string }) => x.id === z.id).description).toBe('first');

    const children = await stack.request(tenant, `/api/knowledge/categories?parent_id=${a.id}`, { token });
    expect(children.json.map((x: { id: string }) => x.id)).toEqual([child.id]);
    const none = await stack.request(tenant, `/api/knowledge/categories?parent_id=${b.id}`, { token });
    expect(none.json).toEqual([]);
  });

  test('when a category id does not exist, then 404 "Category not found"', async () => {
    const res = await stack.request(acme, '/api/knowledge/categories/2b1e9d4c-8a6f-4e0b-9f51-3c7d2a1b0e99', {
      token: acmeAdmin,
    });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ detail: 'Category not found' });
  });

  test('when the path id is not a uuid, then 422 in the FastAPI shape', async () => {
    const res = await stack.request(acme, '/api/knowledge/categories/not-a-uuid', { token: acmeAdmin });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      detail: [{ loc: ['path', 'category_id'], msg: expect.any(String), type: 'uuid_parsing' }],
    });
    const q = await stack.request(acme, '/api/knowledge/categories?parent_id=123', { token: acmeAdmin });
    expect(q.status).toBe(422);
    expect(q.json.detail[0].loc).toEqual(['query', 'parent_id']);
  });
});

describe('tenant isolation', () => {
  test("when another tenant's category id is asked for, then it is 404 exactly like an unknown id", async () => {
    const mine = (await create(acme, acmeAdmin, { name: 'Private to acme' })).json;
    const res = await stack.request(globex, `/api/knowledge/categories/${mine.id}`, { token: globexAdmin });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ detail: 'Category not found' });
    const list = await stack.request(globex, '/api/knowledge/categories', { token: globexAdmin });
    expect(list.json.map((c: { id: string }) => c.id)).not.toContain(mine.id);
  });

  test("when a token is used at another tenant's address, then 401 exactly as an unknown token", async () => {
    const wrongTenant = await stack.request(globex, '/api/knowledge/categories', { token: acmeAdmin });
    const unknown = await stack.request(globex, '/api/knowledge/categories', { token: 'kbt_000000000000_nope' });
    expect(wrongTenant.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrongTenant.json).toEqual(unknown.json);
    expect(wrongTenant.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  test('when the address names no tenant, then 401 exactly as an unknown token (no tenant enumeration)', async () => {
    const res = await stack.request('no-such-tenant-xyz', '/api/knowledge/categories', { token: acmeAdmin });
    const unknown = await stack.request(globex, '/api/knowledge/categories', { token: 'kbt_000000000000_nope' });
    expect(res.status).toBe(401);
    expect([res.json, res.headers['www-authenticate']]).toEqual([unknown.json, unknown.headers['www-authenticate']]);
  });
});

describe('authentication', () => {
  test.each([
    ['no Authorization header', {}],
    ['a Basic scheme', { Authorization: 'Basic dXNlcjpwYXNz' }],
    ['an empty bearer', { Authorization: 'Bearer ' }],
    ['an opaque non-token', { Authorization: 'Bearer hello' }],
    ['a garbage JWT', { Authorization: 'Bearer a.b.c' }],
  ])('when the request carries %s, then 401 with WWW-Authenticate: Bearer', async (_label, headers) => {
    const res = await stack.request(acme, '/api/knowledge/categories', { headers });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(typeof res.json.detail).toBe('string');
  });

  // A token revoked while in use: test/edge/token-cache.test.ts (refused within the documented 5 s).
  test('when a token is revoked, then it stops working', async () => {
    const token = await stack.token(acme, 'Agent', ['--name', 'to-revoke']);
    const id = token.split('_')[1] as string;
    const out = await stack.admin('token', 'revoke', '--tenant', acme, id.slice(0, 8));
    expect(out.join('\n')).toContain(`Revoked token ${id}`);
    expect((await stack.request(acme, '/api/knowledge/categories', { token })).status).toBe(401);
  });

  test('when a token has expired, then 401', async () => {
    const token = await stack.token(acme, 'Agent', ['--expires-in', '0.00001']); // under a second
    await new Promise((r) => setTimeout(r, 1200));
    expect((await stack.request(acme, '/api/knowledge/categories', { token })).status).toBe(401);
  });
});

describe('scopes and roles', () => {
  test('when a Viewer (knowledge:read only) writes, then 403', async () => {
    const res = await create(acme, acmeViewer, { name: 'Nope' });
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ detail: 'Missing scope knowledge:write' });
  });

  test('when X-Scopes narrows an Admin token to read, then writes get 403 and reads still work', async () => {
    const res = await create(acme, acmeAdmin, { name: 'Narrowed' }, { 'X-Scopes': 'knowledge:read' });
    expect(res.status).toBe(403);
    const read = await stack.request(acme, '/api/knowledge/categories', {
      token: acmeAdmin,
      headers: { 'X-Scopes': 'knowledge:read' },
    });
    expect(read.status).toBe(200);
  });

  test('when X-Scopes names scopes the token lacks, then it adds nothing', async () => {
    const res = await create(
      acme,
      acmeViewer,
      { name: 'Escalate' },
      { 'X-Scopes': 'knowledge:read knowledge:write knowledge:admin' },
    );
    expect(res.status).toBe(403);
  });

  test('when X-Scopes is present but empty, then the token can do nothing', async () => {
    const res = await stack.request(acme, '/api/knowledge/categories', {
      token: acmeAdmin,
      headers: { 'X-Scopes': '' },
    });
    expect(res.status).toBe(403);
  });
});

describe('bad input', () => {
  test.each([
    ['an empty name', { name: '' }, ['body', 'name'], 'string_too_short'],
    ['a 201-character name', { name: 'x'.repeat(201) }, ['body', 'name'], 'string_too_long'],
    ['no name', { description: 'x' }, ['body', 'name'], 'missing'],
    ['a name that is a number', { name: 5 }, ['body', 'name'], 'string_type'],
    ['a negative sort_order', { name: 'n', sort_order: -1 }, ['body', 'sort_order'], 'greater_than_equal'],
    ['a fractional sort_order', { name: 'n', sort_order: 1.5 }, ['body', 'sort_order'], 'int_type'],
    ['a malformed parent_id', { name: 'n', parent_id: 'abc' }, ['body', 'parent_id'], 'uuid_parsing'],
    ['an unknown field', { name: 'n', colour: 'red' }, ['body', 'colour'], 'extra_forbidden'],
  ])('when the body has %s, then 422 naming the field and nothing is written', async (_label, body, loc, type) => {
    const before = (await stack.request(acme, '/api/knowledge/categories', { token: acmeAdmin })).json.length;
    const res = await create(acme, acmeAdmin, body);
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual(
      expect.arrayContaining([expect.objectContaining({ loc, type, msg: expect.any(String) })]),
    );
    const after = (await stack.request(acme, '/api/knowledge/categories', { token: acmeAdmin })).json.length;
    expect(after).toBe(before);
  });

  test('when the parent does not exist, then 404 "Parent category not found" and nothing is written', async () => {
    const before = (await stack.request(acme, '/api/knowledge/categories', { token: acmeAdmin })).json.length;
    const res = await create(acme, acmeAdmin, { name: 'n', parent_id: '2b1e9d4c-8a6f-4e0b-9f51-3c7d2a1b0e99' });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ detail: 'Parent category not found' });
    expect((await stack.request(acme, '/api/knowledge/categories', { token: acmeAdmin })).json).toHaveLength(before);
  });

  test('when a name is exactly 200 characters, then it is accepted', async () => {
    expect((await create(acme, acmeAdmin, { name: 'y'.repeat(200) })).status).toBe(201);
  });

  test('when the body is not an object, then 422', async () => {
    const res = await create(acme, acmeAdmin, [1, 2]);
    expect(res.status).toBe(422);
    expect(res.json.detail[0].type).toBe('dict_type');
  });

  test('when the body is missing, then 422 "Field required" at ["body"]', async () => {
    const res = await stack.request(acme, '/api/knowledge/categories', { method: 'POST', token: acmeAdmin });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({ detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] });
  });

  test('when the JSON is malformed, then 400', async () => {
    const res = await create(acme, acmeAdmin, '{"name": ');
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ detail: 'Malformed JSON body' });
  });

  test('when the content type is not JSON, then 415', async () => {
    const res = await create(acme, acmeAdmin, 'name=x', { 'Content-Type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(415);
    expect(typeof res.json.detail).toBe('string');
  });

  test('when the body is larger than the limit, then 413', async () => {
    const res = await create(acme, acmeAdmin, { name: 'big', description: 'x'.repeat(1_100_000) });
    expect(res.status).toBe(413);
    expect(res.json.detail).toMatch(/too large/);
  });

  test('when the route does not exist, then 404 in the error shape', async () => {
    const res = await stack.request(acme, '/api/knowledge/nothing-here', { token: acmeAdmin });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ detail: 'Not Found' });
  });

  test('when the method is not allowed, then 405 in the error shape', async () => {
    const res = await stack.request(acme, '/api/knowledge/categories', { method: 'DELETE', token: acmeAdmin });
    expect(res.status).toBe(405);
    expect(typeof res.json.detail).toBe('string');
  });
});

describe('request ids', () => {
  test('when the caller sends X-Request-Id, then the response echoes it; otherwise a uuid is made', async () => {
    const mine = await stack.request(acme, '/api/knowledge/categories', {
      token: acmeAdmin,
      headers: { 'X-Request-Id': 'req-123' },
    });
    expect(mine.headers['x-request-id']).toBe('req-123');
    const made = await stack.request(acme, '/api/knowledge/categories', { token: acmeAdmin });
    expect(made.headers['x-request-id']).toMatch(UUID);
    const failed = await stack.request(acme, '/api/knowledge/categories');
    expect(failed.headers['x-request-id']).toMatch(UUID);
  });

  test('when X-Audit-Source is not a plain token, then 422 naming the header', async () => {
    const res = await stack.request(acme, '/api/knowledge/categories', {
      token: acmeAdmin,
      headers: { 'X-Audit-Source': 'has spaces in it' },
    });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['header', 'x-audit-source']);
  });
});

describe('probes and OpenAPI', () => {
  test('when everything is up, then /healthz and /readyz answer 200 without a token', async () => {
    expect((await stack.request(acme, '/healthz')).status).toBe(200);
    const ready = await stack.request(acme, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json.status).toBe('ready');
    expect(ready.json.degraded).toEqual([]);
    expect(ready.json.checks).toEqual({
      catalog: 'up',
      'catalog.mongodb': 'up',
      'gateway.elasticsearch': 'up', // the read path's own connection
      knowledge: 'up',
      'knowledge.mongodb': 'up',
      similarity: 'up',
      'similarity.elasticsearch': 'up',
      'similarity.embedder': 'up',
    });
  });

  test('when the OpenAPI document is fetched, then it is 3.1 and describes the category routes from the same schemas', async () => {
    const res = await stack.request(acme, '/api/knowledge/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.json;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/knowledge/categories', '/api/knowledge/categories/{category_id}']),
    );
    expect(doc.components.schemas.Category.properties.name).toMatchObject({ minLength: 1, maxLength: 200 });
    expect(doc.components.schemas.CategoryCreate.additionalProperties).toBe(false);
    expect(doc.paths['/api/knowledge/categories'].post['x-extension']).toBe(true);
    expect(doc.paths['/api/knowledge/categories'].post.responses['422'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/HTTPValidationError',
    });
  });
});

describe('category update', () => {
  const put = (tenant: string, token: string, id: string, body: unknown) =>
    stack.request(tenant, `/api/knowledge/categories/${id}`, { method: 'PUT', token, body });

  test('when fields are sent, then only they change; absent parent_id leaves it, null moves to the top', async () => {
    const parent = (await create(acme, acmeAdmin, { name: 'Parent' })).json;
    const child = (
      await create(acme, acmeAdmin, { name: 'Child', parent_id: parent.id, description: 'd', sort_order: 3 })
    ).json;
    const renamed = await put(acme, acmeAdmin, child.id, { name: 'Renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toMatchObject({
      id: child.id,
      name: 'Renamed',
      parent_id: parent.id,
      description: 'd',
      sort_order: 3,
      created_at: child.created_at,
    });
    expect(Date.parse(renamed.json.updated_at)).toBeGreaterThanOrEqual(Date.parse(child.updated_at));
    const cleared = await put(acme, acmeAdmin, child.id, { description: null, sort_order: 0 });
    expect(cleared.json).toMatchObject({ description: null, sort_order: 0, parent_id: parent.id });
    const top = await put(acme, acmeAdmin, child.id, { parent_id: null });
    expect(top.json.parent_id).toBeNull();
    const back = await put(acme, acmeAdmin, child.id, { parent_id: parent.id });
    expect(back.json.parent_id).toBe(parent.id);
    expect((await put(acme, acmeAdmin, child.id, {})).json).toMatchObject({ name: 'Renamed', parent_id: parent.id });
  });

  test('when the new parent is the category itself or one of its descendants, then 422 and nothing changes', async () => {
    const a = (await create(acme, acmeAdmin, { name: 'A' })).json;
    const b = (await create(acme, acmeAdmin, { name: 'B', parent_id: a.id })).json;
    const c = (await create(acme, acmeAdmin, { name: 'C', parent_id: b.id })).json;
    for (const parent of [a.id, b.id, c.id]) {
      const res = await put(acme, acmeAdmin, a.id, { parent_id: parent, name: 'changed' });
      expect(res.status).toBe(422);
      expect(res.json.detail[0].loc).toEqual(['body', 'parent_id']);
    }
    const unchanged = (await stack.request(acme, `/api/knowledge/categories/${a.id}`, { token: acmeAdmin })).json;
    expect(unchanged).toMatchObject({ name: 'A', parent_id: null });
  });

  test("when the parent does not exist or is another tenant's, then 404 for the parent; an unknown category is 404", async () => {
    const a = (await create(acme, acmeAdmin, { name: 'A2' })).json;
    const theirs = (await create(globex, globexAdmin, { name: 'Theirs' })).json;
    for (const parent of ['2b1e9d4c-8a6f-4e0b-9f51-3c7d2a1b0e99', theirs.id]) {
      const res = await put(acme, acmeAdmin, a.id, { parent_id: parent });
      expect([res.status, res.json]).toEqual([404, { detail: 'Parent category not found' }]);
    }
    expect((await put(acme, acmeAdmin, '2b1e9d4c-8a6f-4e0b-9f51-3c7d2a1b0e99', { name: 'x' })).status).toBe(404);
    expect((await put(globex, globexAdmin, a.id, { name: 'x' })).status).toBe(404);
  });

  test.each([
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(201) }, 'name'],
    [{ name: null }, 'name'],
    [{ sort_order: -1 }, 'sort_order'],
    [{ sort_order: null }, 'sort_order'],
    [{ parent_id: 'abc' }, 'parent_id'],
    [{ colour: 'red' }, 'colour'],
  ])('when the update body is %j, then 422 naming %s', async (body, field) => {
    const a = (await create(acme, acmeAdmin, { name: 'Bounds' })).json;
    const res = await put(acme, acmeAdmin, a.id, body);
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['body', field]);
  });

  test('when name is 1 or 200 characters and sort_order 0, then accepted', async () => {
    const a = (await create(acme, acmeAdmin, { name: 'Edges' })).json;
    expect((await put(acme, acmeAdmin, a.id, { name: 'x' })).status).toBe(200);
    expect((await put(acme, acmeAdmin, a.id, { name: 'x'.repeat(200), sort_order: 0 })).status).toBe(200);
  });

  test('when a Viewer updates, then 403', async () => {
    const a = (await create(acme, acmeAdmin, { name: 'NoViewer' })).json;
    expect((await put(acme, acmeViewer, a.id, { name: 'x' })).status).toBe(403);
  });
});

describe('category delete', () => {
  const del = (id: string, token = acmeAdmin) =>
    stack.request(acme, `/api/knowledge/categories/${id}`, { method: 'DELETE', token });

  test('when a category has children or entries, then 409; once empty, 204 and it is gone', async () => {
    const parent = (await create(acme, acmeAdmin, { name: 'P' })).json;
    const child = (await create(acme, acmeAdmin, { name: 'C', parent_id: parent.id })).json;
    const entry = (
      await stack.request(acme, '/api/knowledge/knowledge-entries', {
        method: 'POST',
        token: acmeAdmin,
        body: { title: 't', content: 'c', category_id: child.id, visibility: 'internal' },
      })
    ).json;
    const withChildren = await del(parent.id);
    expect(withChildren.status).toBe(409);
    expect(typeof withChildren.json.detail).toBe('string');
    expect((await del(child.id)).status).toBe(409);
    await stack.request(acme, `/api/knowledge/knowledge-entries/${entry.id}`, { method: 'DELETE', token: acmeAdmin });
    expect((await del(child.id)).status).toBe(204);
    expect((await del(parent.id)).status).toBe(204);
    expect((await stack.request(acme, `/api/knowledge/categories/${parent.id}`, { token: acmeAdmin })).status).toBe(
      404,
    );
    expect((await del(parent.id)).status).toBe(404);
  });

  test('when a token without knowledge:admin deletes, then 403', async () => {
    const c = (await create(acme, acmeAdmin, { name: 'Keep' })).json;
    const supervisor = await stack.token(acme, 'Supervisor');
    expect((await del(c.id, supervisor)).status).toBe(403);
    expect((await stack.request(acme, `/api/knowledge/categories/${c.id}`, { token: acmeAdmin })).status).toBe(200);
  });
});
