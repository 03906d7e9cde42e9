/** Reading a JSON body: what is refused before a route sees it, and with which status. */
import { AppError } from '@kb/platform';
import { IDENTITY, startGateway, type TestGateway } from './support/gateway';

let gw: TestGateway;
const CATEGORIES = '/api/knowledge/categories';
const LIMIT = 2048;

beforeAll(async () => {
  gw = await startGateway({ BODY_LIMIT_BYTES: String(LIMIT) });
  gw.knowledge.CreateCategory = (req: { name: string }) => ({
    id: '0b6f3a3e-8e0c-4a39-9c55-2d1f0f6f1c11',
    tenant_id: 'acme',
    name: req.name,
    sort_order: 0,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  });
});
afterAll(() => gw.close());

test('when the body is not JSON by its content type, then 415', async () => {
  const res = await gw.request(CATEGORIES, { body: 'name=x', headers: { 'Content-Type': 'text/plain' } });
  expect([res.status, res.json]).toEqual([415, { detail: 'Unsupported media type: send application/json' }]);
});

test('when the content type is a +json type, then the body is read as JSON', async () => {
  const res = await gw.request(CATEGORIES, {
    body: { name: 'Shipping' },
    headers: { 'Content-Type': 'application/merge-patch+json' },
  });
  expect([res.status, res.json.name]).toEqual([201, 'Shipping']);
});

test('when the body is compressed in an encoding the gateway does not read, then 415', async () => {
  const res = await gw.request(CATEGORIES, { body: '{"name":"x"}', headers: { 'Content-Encoding': 'br2' } });
  expect([res.status, res.json]).toEqual([415, { detail: 'Unsupported content encoding' }]);
});

test('when Content-Length announces more than the limit, then 413 names the limit', async () => {
  const res = await gw.request(CATEGORIES, { body: { name: 'x'.repeat(LIMIT) } });
  expect([res.status, res.json]).toEqual([413, { detail: `Request body too large (limit ${LIMIT} bytes)` }]);
});

test('when a chunked body grows past the limit, then 413 too', async () => {
  const res = await gw.request(CATEGORIES, { body: { name: 'x'.repeat(LIMIT) }, chunked: true });
  expect([res.status, res.json]).toEqual([413, { detail: `Request body too large (limit ${LIMIT} bytes)` }]);
});

test('when the JSON is malformed, then 400', async () => {
  const res = await gw.request(CATEGORIES, { body: '{"name": "x",' });
  expect([res.status, res.json]).toEqual([400, { detail: 'Malformed JSON body' }]);
});

test('when an object has the same key twice, then 400 names the key', async () => {
  const before = gw.calls.length;
  const res = await gw.request(CATEGORIES, { body: '{"name":"a","sort_order":1,"name":"b"}' });
  expect([res.status, res.json]).toEqual([400, { detail: 'Malformed JSON body: duplicate key "name"' }]);
  // The token was checked (or its identity kept); nothing else reached a back service.
  expect(gw.calls.slice(before).filter((c) => c.method !== 'AuthenticateApiToken')).toEqual([]);
});

test.each([
  ['malformed JSON', { body: '{"name": "x",' }],
  ['a key sent twice', { body: '{"name":"a","name":"b"}' }],
  ['a body over the limit', { body: JSON.stringify({ name: 'x'.repeat(LIMIT) }) }],
  ['another content type', { body: 'name=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }],
])('when %s comes without a valid token, then 401: the body is read only after authentication', async (_l, sent) => {
  for (const token of [null, 'kbt_not_valid']) {
    const before = gw.calls.length;
    if (token)
      gw.knowledge.AuthenticateApiToken = () => {
        throw new AppError('unauthenticated', 'Invalid or expired token');
      };
    try {
      const res = await gw.request(CATEGORIES, { ...sent, token });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
    } finally {
      gw.knowledge.AuthenticateApiToken = () => IDENTITY;
    }
    expect(gw.calls.slice(before).map((c) => c.method)).not.toContain('CreateCategory');
  }
});

test('when the body is nested deeper than allowed, then 422 json_too_deep at the body', async () => {
  const res = await gw.request(CATEGORIES, { body: `${'['.repeat(40)}${']'.repeat(40)}` });
  expect(res.status).toBe(422);
  expect(res.json.detail).toEqual([
    { loc: ['body'], msg: 'JSON should be nested at most 32 levels deep', type: 'json_too_deep' },
  ]);
});

test('when a key starts with "$", then 422 names it', async () => {
  const res = await gw.request(CATEGORIES, { body: { name: 'x', $where: 1 } });
  expect(res.status).toBe(422);
  expect(res.json.detail[0]).toMatchObject({ loc: ['body', '$where'], type: 'key_invalid' });
});

test('when a write has no body, then 422 says the body is required', async () => {
  const res = await gw.request(CATEGORIES, { method: 'POST' });
  expect([res.status, res.json]).toEqual([
    422,
    { detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] },
  ]);
});

test('when a GET carries a body, then it is not read', async () => {
  gw.knowledge.ListCategories = () => ({ categories: [] });
  const res = await gw.request(CATEGORIES, {
    method: 'GET',
    body: 'not json',
    headers: { 'Content-Type': 'text/plain' },
  });
  expect([res.status, res.json]).toEqual([200, []]);
});
