/** The identity cache on its own: TTL, the token's own expiry, the size bound, hashes as keys, failures. */
import { AppError, sha256Hex } from '@kb/platform';
import { IdentityCache } from '../src/http/identity-cache';

interface Id {
  token_id: string;
  expires_at?: string;
}

const TOKEN = 'kbt_0123456789ab_secret-part';

/** A cache on a clock the test moves, and a check that counts its calls. */
function setup(options: { ttlMs?: number; max?: number } = {}) {
  let now = Date.parse('2026-11-26T00:00:00Z');
  const cache = new IdentityCache<Id>({ ttlMs: options.ttlMs ?? 5000, max: options.max ?? 100, now: () => now });
  const checks: string[] = [];
  let answer: (hash: string) => Id = (hash) => ({ token_id: hash.slice(0, 8) });
  const check = async (hash: string) => {
    checks.push(hash);
    return answer(hash);
  };
  return {
    cache,
    checks,
    check,
    advance: (ms: number) => void (now += ms),
    at: (ms: number) => new Date(now + ms).toISOString(),
    answer: (fn: (hash: string) => Id) => void (answer = fn),
  };
}

const refused = () => {
  throw new AppError('unauthenticated', 'Invalid or expired token');
};

test('when a token comes again within the TTL, then the kept identity answers without a check', async () => {
  const { cache, checks, check, advance } = setup();
  await cache.identity(TOKEN, 'acme', check);
  advance(4999);
  expect(await cache.identity(TOKEN, 'acme', check)).toEqual({ token_id: sha256Hex(TOKEN).slice(0, 8) });
  expect(checks).toHaveLength(1);
});

test('when the TTL has passed, then the token is checked again, and a refusal then is the answer', async () => {
  const { cache, checks, check, advance, answer } = setup();
  await cache.identity(TOKEN, 'acme', check);
  answer(refused); // revoked
  advance(5000);
  await expect(cache.identity(TOKEN, 'acme', check)).rejects.toThrow('Invalid or expired token');
  expect(checks).toHaveLength(2);
  expect(cache.recognised(TOKEN)).toBe(false);
});

test("when the token expires before the TTL ends, then its identity is kept only until the token's expiry", async () => {
  const { cache, checks, check, advance, at, answer } = setup();
  answer(() => ({ token_id: 't', expires_at: at(1200) }));
  await cache.identity(TOKEN, 'acme', check);
  advance(1199);
  await cache.identity(TOKEN, 'acme', check);
  expect(checks).toHaveLength(1);
  answer(refused); // expired, as the knowledge service says
  advance(1);
  await expect(cache.identity(TOKEN, 'acme', check)).rejects.toThrow('Invalid or expired token');
  expect(checks).toHaveLength(2);
});

test.each([
  ['its expiry has passed by this clock', (at: (ms: number) => string) => at(-1)],
  ['its expiry cannot be read', () => 'not a date'],
])('when a checked token comes with an expiry that %s, then it is not kept', async (_label, expiry) => {
  const { cache, checks, check, at, answer } = setup();
  answer(() => ({ token_id: 't', expires_at: expiry(at) }));
  await cache.identity(TOKEN, 'acme', check);
  await cache.identity(TOKEN, 'acme', check);
  expect(checks).toHaveLength(2);
});

test('when the TTL is 0, then every call is checked', async () => {
  const { cache, checks, check } = setup({ ttlMs: 0 });
  await cache.identity(TOKEN, 'acme', check);
  await cache.identity(TOKEN, 'acme', check);
  expect(checks).toHaveLength(2);
  expect(cache.size).toBe(0);
});

test('when more tokens come than the cache holds, then the least recently used one goes', async () => {
  const { cache, checks, check } = setup({ max: 3 });
  for (const t of ['kbt_a', 'kbt_b', 'kbt_c']) await cache.identity(t, 'acme', check);
  await cache.identity('kbt_a', 'acme', check); // a is used again: b is now the oldest
  await cache.identity('kbt_d', 'acme', check);
  expect(cache.size).toBe(3);
  checks.length = 0;
  for (const t of ['kbt_a', 'kbt_c', 'kbt_d']) await cache.identity(t, 'acme', check);
  expect(checks).toEqual([]);
  await cache.identity('kbt_b', 'acme', check);
  expect(checks).toEqual([sha256Hex('kbt_b')]);
});

test('when a token is kept, then the check and the cache see only its SHA-256, never the token', async () => {
  const { cache, checks, check } = setup();
  await cache.identity(TOKEN, 'acme', check);
  expect(checks).toEqual([sha256Hex(TOKEN)]);
  const entries = (cache as unknown as { entries: Map<string, unknown> }).entries;
  const keys = [...entries.keys()];
  expect(keys).toEqual([sha256Hex(TOKEN)]);
  expect(JSON.stringify([...entries.entries()])).not.toContain('secret-part');
});

test('when a check fails, then nothing is kept: the next call checks again', async () => {
  const { cache, checks, check, answer } = setup();
  answer(refused);
  await expect(cache.identity(TOKEN, 'acme', check)).rejects.toThrow();
  expect(cache.recognised(TOKEN)).toBe(false);
  answer(() => ({ token_id: 't' }));
  await cache.identity(TOKEN, 'acme', check);
  expect(checks).toHaveLength(2);
  expect(cache.recognised(TOKEN)).toBe(true);
});

test("when a kept token is sent to another tenant's address, then it is checked there and the refusal does not forget it", async () => {
  const { cache, checks, check, answer } = setup();
  await cache.identity(TOKEN, 'acme', check);
  answer(refused); // a token belongs to one tenant
  await expect(cache.identity(TOKEN, 'globex', check)).rejects.toThrow();
  expect(checks).toHaveLength(2);
  await cache.identity(TOKEN, 'acme', check);
  expect(checks).toHaveLength(2);
});

test('when several requests bring a token not kept at once, then one check answers them all', async () => {
  const { cache, checks, check } = setup();
  const ids = await Promise.all([1, 2, 3, 4].map(() => cache.identity(TOKEN, 'acme', check)));
  expect(new Set(ids.map((i) => i.token_id)).size).toBe(1);
  expect(checks).toHaveLength(1);
});
