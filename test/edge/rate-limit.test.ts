/**
 * The gateway's limits as an attacker meets them: requests per authenticated caller (counted
 * after authentication, whatever the spelling of the header), failed authentications per client
 * address (the default, 100 a minute), and a body read only once the caller is known.
 */
import { randomBytes } from 'node:crypto';
import { httpRequest, startStack, type Stack } from '../support/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { RATE_LIMIT_PER_MINUTE: '5' } });
});
afterAll(async () => {
  await stack?.stop();
});

const CATEGORIES = '/api/knowledge/categories';
const withHeader = (tenant: string, Authorization: string) =>
  httpRequest(stack.port, `${tenant}.localhost`, CATEGORIES, { headers: { Authorization } });

test('when a token goes over its requests per minute, then 429 with Retry-After, and other tokens are unaffected', async () => {
  const token = await stack.tenantWithToken('limited');
  const other = await stack.token('limited', 'Viewer');
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push((await stack.request('limited', CATEGORIES, { token })).status);
  expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  const limited = await stack.request('limited', CATEGORIES, { token });
  expect(limited.status).toBe(429);
  expect(limited.json).toEqual({ detail: 'Rate limit exceeded' });
  expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(limited.headers['x-request-id']).toBeDefined();
  expect((await stack.request('limited', CATEGORIES, { token: other })).status).toBe(200);
  expect((await stack.request('limited', '/healthz')).status).toBe(200);

  // The same token re-spelled is the same caller: `bearer`/`BEARER` (the scheme is
  // case-insensitive) stay limited; an extra space is no Bearer header (RFC 6750): 401.
  for (const scheme of ['bearer', 'BEARER', 'Bearer'])
    expect((await withHeader('limited', `${scheme} ${token}`)).status).toBe(429);
  for (const header of [`Bearer  ${token}`, `Bearer\t${token}`]) {
    const res = await withHeader('limited', header);
    expect([res.status, res.json]).toEqual([
      401,
      { detail: 'Malformed Authorization header: expected "Bearer <token>"' },
    ]);
  }
});

test("when a tenant sets its own rate_limit.requests_per_minute, then its callers get that many, others the gateway's", async () => {
  const token = await stack.tenantWithToken('roomy');
  await stack.admin('tenant', 'settings', '--tenant', 'roomy', '--set', 'rate_limit.requests_per_minute=8');
  await new Promise((r) => setTimeout(r, 5_100)); // the gateway re-reads tenant settings every 5 s
  const statuses: number[] = [];
  for (let i = 0; i < 9; i++) statuses.push((await stack.request('roomy', CATEGORIES, { token })).status);
  expect(statuses.filter((s) => s === 200)).toHaveLength(8);
  expect(statuses.at(-1)).toBe(429);
});

test('when a malformed, oversized or mistyped body comes without a valid token, then 401, not 400/413/415', async () => {
  await stack.tenantWithToken('bodies');
  const bodies: [string, string][] = [
    ['{"name": ', 'application/json'],
    ['{"name":"a","name":"b"}', 'application/json'],
    [JSON.stringify({ name: 'x'.repeat(2_000_000) }), 'application/json'],
    ['name=x', 'application/x-www-form-urlencoded'],
  ];
  for (const [body, type] of bodies) {
    for (const token of [undefined, 'kbt_000000000000_nope']) {
      const res = await stack.request('bodies', CATEGORIES, {
        method: 'POST',
        token,
        body,
        headers: { 'Content-Type': type },
      });
      expect([res.status, res.headers['www-authenticate']]).toEqual([401, expect.stringMatching(/^Bearer /)]);
    }
  }
});

// Last: it leaves 127.0.0.1 over its failed-authentication limit for the rest of the minute.
test('when one address sends 300 varied bogus Authorization headers, then 429 after 100 failures; valid tokens still served', async () => {
  const fresh = await stack.tenantWithToken('guessed');
  const known = await stack.token('guessed', 'Viewer');
  expect((await stack.request('guessed', CATEGORIES, { token: known })).status).toBe(200);
  const spellings = [
    (t: string) => `Bearer kbt_${t}`,
    (t: string) => `bearer kbt_${t}`,
    (t: string) => `BEARER ${t}.${t}.${t}`,
    (t: string) => `Bearer  kbt_${t}`,
    (t: string) => `Basic ${t}`,
    (t: string) => `Bearer ${t}`,
  ];
  const statuses: number[] = [];
  for (let i = 0; i < 300; i++) {
    const header = spellings[i % spellings.length]!(randomBytes(12).toString('hex'));
    statuses.push((await withHeader('guessed', header)).status);
  }
  // The tests above spent a few of this minute's 100 failures.
  const first429 = statuses.indexOf(429);
  expect(first429).toBeGreaterThanOrEqual(80);
  expect(first429).toBeLessThanOrEqual(100);
  expect(statuses.slice(0, first429).every((s) => s === 401)).toBe(true);
  expect(statuses.slice(first429).every((s) => s === 429)).toBe(true);
  // An unknown tenant is no way around it.
  expect((await withHeader('no-such-tenant-here', 'Bearer kbt_x')).status).toBe(429);
  // Valid credentials from the same address are served: a token not seen before…
  expect((await stack.request('guessed', CATEGORIES, { token: fresh })).status).toBe(200);
  // …and one that passed before (a colleague behind the same address).
  expect((await stack.request('guessed', CATEGORIES, { token: known })).status).toBe(200);
});
