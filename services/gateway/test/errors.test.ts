/** How every error leaves the gateway: one status and body per error kind, never a stack. */
import { AppError } from '@kb/platform';
import { IDENTITY, startGateway, UUID, type TestGateway } from './support/gateway';

let gw: TestGateway;
const CATEGORY = `/api/knowledge/categories/${UUID}`;

beforeAll(async () => {
  gw = await startGateway({ RATE_LIMIT_PER_MINUTE: '3' });
  // Each test's token is a caller of its own, with a rate-limit window of its own.
  gw.knowledge.AuthenticateApiToken = (req: { token_sha256: string }) => ({ ...IDENTITY, token_id: req.token_sha256 });
});
afterAll(() => gw.close());

const failWith = (err: unknown) => {
  gw.knowledge.GetCategory = () => {
    throw err;
  };
};

test.each([
  [AppError.notFound('Category not found'), 404, 'Category not found'],
  [AppError.forbidden('Needs knowledge:admin'), 403, 'Needs knowledge:admin'],
  [AppError.conflict('Changed concurrently'), 409, 'Changed concurrently'],
  [new AppError('precondition_failed', 'If-Match does not match'), 412, 'If-Match does not match'],
  [AppError.badRequest('Malformed'), 400, 'Malformed'],
  [
    new AppError('deadline', 'The knowledge service did not answer in time'),
    504,
    'The knowledge service did not answer in time',
  ],
])(
  'when a back service raises %p, then the answer is %i with its message as the detail',
  async (err, status, detail) => {
    failWith(err);
    const res = await gw.request(CATEGORY, { token: `kbt_${status}` });
    expect([res.status, res.json]).toEqual([status, { detail }]);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  },
);

test('when the error is a validation error, then 422 lists every issue as {loc, msg, type}', async () => {
  const issues = [
    { loc: ['body', 'name'], msg: 'Field required', type: 'missing' },
    { loc: ['body', 'tags', 0], msg: 'String should have at most 100 characters', type: 'string_too_long' },
  ];
  failWith(AppError.invalid(issues));
  const res = await gw.request(CATEGORY, { token: 'kbt_422a' });
  expect([res.status, res.json]).toEqual([422, { detail: issues }]);
});

test('when a 422 comes without issues, then its message is the one issue, at no location', async () => {
  failWith(new AppError('invalid', 'Unknown setting'));
  const res = await gw.request(CATEGORY, { token: 'kbt_422b' });
  expect(res.json).toEqual({ detail: [{ loc: [], msg: 'Unknown setting', type: 'value_error' }] });
});

test('when a dependency is unavailable, then 503 says when to retry', async () => {
  failWith(AppError.unavailable('The knowledge service is unavailable'));
  const res = await gw.request(CATEGORY, { token: 'kbt_503' });
  expect([res.status, res.json, res.headers['retry-after']]).toEqual([
    503,
    { detail: 'The knowledge service is unavailable' },
    '5',
  ]);
});

test('when Elasticsearch fails a read the gateway makes itself, then the 503 shows none of it and the log gives its reason', async () => {
  const refused = Object.assign(new Error('circuit_breaking_exception'), {
    name: 'ResponseError',
    statusCode: 429,
    body: { error: { reason: '[parent] Data too large' } },
  });
  failWith(AppError.unavailable('Elasticsearch is unavailable', refused));
  const res = await gw.request(CATEGORY, { token: 'kbt_503es', headers: { 'X-Request-Id': 'req-503es' } });
  expect([res.status, res.text]).toEqual([503, '{"detail":"Elasticsearch is unavailable"}']);
  expect(gw.errors.at(-1)).toMatchObject({
    request_id: 'req-503es',
    status: 503,
    cause: 'ResponseError 429: circuit_breaking_exception ([parent] Data too large)',
  });
});

test('when the error is unauthenticated, then 401 asks for a bearer token', async () => {
  failWith(new AppError('unauthenticated', 'Invalid or expired token'));
  const res = await gw.request(CATEGORY, { token: 'kbt_401' });
  expect(res.status).toBe(401);
  expect(res.headers['www-authenticate']).toBe('Bearer realm="knowledge", error="invalid_token"');
});

test(
  'when something unforeseen is thrown, then 500 carries neither ' +
    'its message nor its stack, and it is logged with the request id',
  async () => {
    failWith(new TypeError('secret internals at /srv/x.ts:12'));
    const res = await gw.request(CATEGORY, { token: 'kbt_500', headers: { 'X-Request-Id': 'req-500' } });
    expect([res.status, res.text]).toEqual([500, '{"detail":"Internal server error"}']);
    expect(gw.errors.at(-1)).toMatchObject({ request_id: 'req-500', status: 500, msg: 'request failed' });
  },
);

test('when an internal AppError is raised, then the caller sees the generic 500 and only the log has its message', async () => {
  failWith(new AppError('internal', 'The knowledge service answered without an entry'));
  const res = await gw.request(CATEGORY, { token: 'kbt_500b' });
  expect([res.status, res.json]).toEqual([500, { detail: 'Internal server error' }]);
  expect(gw.errors.at(-1)?.err).toMatchObject({ message: 'The knowledge service answered without an entry' });
});

test('when the caller sends a sane X-Request-Id, then the answer carries it back', async () => {
  const res = await gw.request('/api/knowledge/nowhere', { headers: { 'X-Request-Id': 'abc.123:x' } });
  expect(res.headers['x-request-id']).toBe('abc.123:x');
});

test('when the X-Request-Id is not a sane token, then the answer carries a new uuid instead', async () => {
  const res = await gw.request('/healthz', { headers: { 'X-Request-Id': 'a b' } });
  expect(res.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test('when no route has the path, then 404 {"detail":"Not Found"} with a request id', async () => {
  const res = await gw.request('/api/knowledge/nowhere', { token: 'kbt_404' });
  expect([res.status, res.text]).toEqual([404, '{"detail":"Not Found"}']);
  expect(res.headers['x-request-id']).toBeDefined();
});

test("when the route exists but not for the method, then the router's 405 keeps its message", async () => {
  const res = await gw.request('/api/knowledge/categories', { method: 'PATCH', token: 'kbt_405' });
  expect([res.status, res.json]).toEqual([405, { detail: 'Method Not Allowed' }]);
  expect(res.headers['x-request-id']).toBeDefined();
});

test("when a token goes over the rate limit, then the limiter's 429 keeps its Retry-After and message", async () => {
  gw.knowledge.ListCategories = () => ({ categories: [] });
  const statuses: number[] = [];
  let last;
  for (let i = 0; i < 4; i++) {
    last = await gw.request('/api/knowledge/categories', { token: 'kbt_limited' });
    statuses.push(last.status);
  }
  expect(statuses).toEqual([200, 200, 200, 429]);
  expect(last?.json).toEqual({ detail: 'Rate limit exceeded' });
  expect(Number(last?.headers['retry-after'])).toBeGreaterThan(0);
  expect(last?.headers['x-request-id']).toBeDefined();
});
