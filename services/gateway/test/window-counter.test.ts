/** The two limits: requests per authenticated caller, and failed authentications per client address. */
import { AppError, sha256Hex } from '@kb/platform';
import { clientKey, WindowCounter } from '../src/http/rate-limit';
import { IDENTITY, TENANT, TOKEN, startGateway, useGateway } from './support/gateway';

const CATEGORIES = '/api/knowledge/categories';

describe('the store', () => {
  test('when more keys arrive than it keeps, then the least recently used go and the busy key keeps its count', () => {
    const counter = new WindowCounter(100);
    for (let i = 0; i < 5; i++) counter.add('busy');
    for (let i = 0; i < 10_000; i++) {
      counter.add(`bogus-${i}`);
      if (i % 50 === 0) counter.add('busy');
    }
    expect(counter.size).toBe(100);
    expect(counter.count('busy').count).toBe(5 + 200);
    expect(counter.count('bogus-0').count).toBe(0);
  });

  test('when the minute is over, then the count starts again', () => {
    const counter = new WindowCounter(10);
    const t0 = 1_000_000;
    counter.add('k', t0);
    expect(counter.add('k', t0 + 59_999).count).toBe(2);
    expect(counter.add('k', t0 + 60_000).count).toBe(1);
  });

  test.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:aaaa::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:bbbb:cccc:dddd:eeee', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
  ])('when the client address is %s, then failures count for %s', (ip, key) => {
    expect(clientKey(ip)).toBe(key);
  });
});

describe('requests per caller', () => {
  const gateway = useGateway({ RATE_LIMIT_PER_MINUTE: '3', AUTH_FAILURES_PER_MINUTE: '0' });
  const withHeader = (Authorization: string) =>
    gateway().request(CATEGORIES, { token: null, headers: { Authorization } });

  beforeAll(() => {
    gateway().knowledge.ListCategories = () => ({ categories: [] });
  });

  test('when a limited token is written with another case of the scheme, then it is the same caller, still limited', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await withHeader(`Bearer ${TOKEN}`)).status);
    expect(statuses).toEqual([200, 200, 200]);
    for (const header of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER ${TOKEN}`]) {
      const res = await withHeader(header);
      expect([res.status, res.json]).toEqual([429, { detail: 'Rate limit exceeded' }]);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    // With two spaces it is no Bearer header at all (RFC 6750): 401, never a fresh bucket.
    expect((await withHeader(`Bearer  ${TOKEN}`)).status).toBe(401);
  });

  test('when two tokens are two callers, then each has its own minute', async () => {
    gateway().knowledge.AuthenticateApiToken = (req: { token_sha256: string }) => ({
      ...IDENTITY,
      token_id: req.token_sha256.slice(0, 8),
    });
    expect((await gateway().request(CATEGORIES, { token: 'kbt_other_caller' })).status).toBe(200);
  });
});

describe("a tenant's own limit", () => {
  test('when the tenant sets rate_limit.requests_per_minute, then it applies instead of the gateway default', async () => {
    const gw = await startGateway({ RATE_LIMIT_PER_MINUTE: '100' });
    try {
      gw.knowledge.ResolveTenant = () => ({ ...TENANT, settings: { rate_limit: { requests_per_minute: 2 } } });
      gw.knowledge.ListCategories = () => ({ categories: [] });
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await gw.request(CATEGORIES)).status);
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await gw.close();
    }
  });
});

describe('failed authentications per client address', () => {
  const gateway = useGateway({ AUTH_FAILURES_PER_MINUTE: '5' });

  test('when an address sends varied bogus tokens past the limit, then 429 per further failure, valid tokens served', async () => {
    const gw = gateway();
    gw.knowledge.ListCategories = () => ({ categories: [] });
    const colleague = 'kbt_colleague_behind_the_same_nat';
    expect((await gw.request(CATEGORIES, { token: colleague })).status).toBe(200);
    gw.knowledge.AuthenticateApiToken = (req: { token_sha256: string }) => {
      if (req.token_sha256 !== sha256Hex(colleague)) throw new AppError('unauthenticated', 'Invalid or expired token');
      return IDENTITY;
    };
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await gw.request(CATEGORIES, { token: `kbt_guess_${i}` })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    const limited = await gw.request(CATEGORIES, { token: 'kbt_guess_again' });
    expect([limited.status, limited.json]).toEqual([429, { detail: 'Rate limit exceeded' }]);
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    // Valid credentials are served from the same address: a token not seen before, and one seen.
    gw.knowledge.AuthenticateApiToken = () => IDENTITY;
    expect((await gw.request(CATEGORIES, { token: TOKEN })).status).toBe(200);
    expect((await gw.request(CATEGORIES, { token: colleague })).status).toBe(200);
    // The OpenAPI document and the probes stay open.
    expect((await gw.request('/api/knowledge/openapi.json', { token: null })).status).toBe(200);
  });
});
