/**
 * OAuth access tokens: JWTs verified against the tenant's configured issuer (JWKS URL,
 * audience, allowed algorithms, tenant claim), served here by a real JWKS endpoint on 127.0.0.1
 * (plain http is allowed only on loopback). Two tenants trust the same issuer and audience: the
 * tenant claim keeps their tokens apart.
 */
import { createPublicKey } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type KeyLike } from 'jose';
import { startStack, uniqueId, type Stack } from '../support/stack';

const ISSUER = 'https://login.example.test/';
const AUDIENCE = 'knowledge-api';
const USER = '0b7d3f0e-6c1a-4f5e-9d2b-8a4c1e3f5a7b';

let stack: Stack;
let jwks: Server;
let key: KeyLike;
let otherKey: KeyLike;
const tenant = uniqueId('oauth');
const sibling = uniqueId('sibling');
const plain = uniqueId('plain');
let jwksUrl: string;

async function sign(
  claims: Record<string, unknown>,
  options: { key?: KeyLike; issuer?: string; audience?: string | null; expiresIn?: string; alg?: string } = {},
) {
  const jwt = new SignJWT({ tenant_id: tenant, ...claims })
    .setProtectedHeader({ alg: options.alg ?? 'RS256', kid: 'k1' })
    .setSubject(USER)
    .setIssuer(options.issuer ?? ISSUER)
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '5m');
  if (options.audience !== null) jwt.setAudience(options.audience ?? AUDIENCE);
  return jwt.sign(options.key ?? key);
}

const oauthSettings = (t: string, url: string, ...extra: string[]) =>
  stack.admin(
    'tenant',
    'settings',
    '--tenant',
    t,
    '--set',
    `oauth.issuer=${ISSUER}`,
    '--set',
    `oauth.jwks_url=${url}`,
    '--set',
    `oauth.audience=${AUDIENCE}`,
    ...extra.flatMap((e) => ['--set', e]),
  );

beforeAll(async () => {
  ({ privateKey: key } = await generateKeyPair('RS256'));
  ({ privateKey: otherKey } = await generateKeyPair('RS256'));
  const publicKey = await exportPublic(key);
  jwks = createServer((req, res) => {
    res.setHeader('Content-Type', 'application/json');
    // The same key for RS384 too: a token signed with it fails only where the tenant does not allow RS384.
    res.end(JSON.stringify({ keys: [publicKey, { ...publicKey, alg: 'RS384' }] }));
  });
  await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', r));
  jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`;

  stack = await startStack({ env: { AUTH_FAILURES_PER_MINUTE: '0' } });
  for (const t of [tenant, sibling, plain]) await stack.admin('tenant', 'create', t);
  await oauthSettings(tenant, jwksUrl);
  await oauthSettings(sibling, jwksUrl);
});
afterAll(async () => {
  await stack?.stop();
  jwks?.close();
});

/** The public half of an RSA private key, as the JWK the endpoint serves. */
async function exportPublic(privateKey: KeyLike) {
  const jwk = await exportJWK(createPublicKey(privateKey as never));
  return { ...jwk, kid: 'k1', alg: 'RS256', use: 'sig' };
}

const list = (t: string, token: string, headers: Record<string, string> = {}) =>
  stack.request(t, '/api/knowledge/categories', { token, headers });

describe('OAuth access tokens', () => {
  test('when a JWT from the configured issuer carries a role and scopes, then it is accepted with exactly those scopes', async () => {
    const reader = await sign({ role: 'Viewer', scope: 'knowledge:read' });
    expect((await list(tenant, reader)).status).toBe(200);
    const write = await stack.request(tenant, '/api/knowledge/categories', {
      method: 'POST',
      token: reader,
      body: { name: 'x' },
    });
    expect(write.status).toBe(403);

    const writer = await sign({ role: 'Agent', scope: ['knowledge:read', 'knowledge:write'] });
    const created = await stack.request(tenant, '/api/knowledge/categories', {
      method: 'POST',
      token: writer,
      body: { name: 'From OAuth' },
    });
    expect(created.status).toBe(201);
  });

  test.each([
    ['the wrong audience', () => sign({ role: 'Admin', scope: 'knowledge:read' }, { audience: 'someone-else' })],
    ['the wrong issuer', () => sign({ role: 'Admin', scope: 'knowledge:read' }, { issuer: 'https://evil.test/' })],
    ['an unknown signing key', () => sign({ role: 'Admin', scope: 'knowledge:read' }, { key: otherKey })],
    ['an expired token', () => sign({ role: 'Admin', scope: 'knowledge:read' }, { expiresIn: '-1m' })],
    ['no role', () => sign({ scope: 'knowledge:read' })],
    ['a role that does not exist', () => sign({ role: 'Root', scope: 'knowledge:read' })],
    ['no audience', () => sign({ role: 'Admin', scope: 'knowledge:read' }, { audience: null })],
    ['no tenant claim', () => sign({ role: 'Admin', scope: 'knowledge:read', tenant_id: undefined })],
    [
      'an algorithm outside the allow-list (RS384)',
      () => sign({ role: 'Admin', scope: 'knowledge:read' }, { alg: 'RS384' }),
    ],
  ])('when the JWT has %s, then 401', async (_label, make) => {
    const res = await list(tenant, await make());
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  test('when a JWT is used at a tenant with no OAuth issuer configured, then 401', async () => {
    const res = await list(plain, await sign({ role: 'Admin', scope: 'knowledge:read' }));
    expect(res.status).toBe(401);
  });

  test('when X-Scopes narrows a JWT, then only the intersection applies', async () => {
    const admin = await sign({ role: 'Admin', scope: 'knowledge:read knowledge:write' });
    const res = await stack.request(tenant, '/api/knowledge/categories', {
      method: 'POST',
      token: admin,
      body: { name: 'y' },
      headers: { 'X-Scopes': 'knowledge:read' },
    });
    expect(res.status).toBe(403);
  });
});

describe('OAuth hardening', () => {
  test("when two tenants trust one issuer and audience, then one tenant's JWT is refused at the other (tenant claim)", async () => {
    const forTenant = await sign({ role: 'Admin', scope: 'knowledge:read' });
    const forSibling = await sign({ role: 'Admin', scope: 'knowledge:read', tenant_id: sibling });
    expect((await list(tenant, forTenant)).status).toBe(200);
    expect((await list(sibling, forSibling)).status).toBe(200);
    const crossed = await list(sibling, forTenant);
    expect([crossed.status, crossed.json]).toEqual([401, { detail: 'Invalid or expired token' }]);
    expect((await list(tenant, forSibling)).status).toBe(401);
  });

  test('when a tenant allows RS384 too and names its own tenant claim, then such a token is accepted', async () => {
    const custom = uniqueId('custom');
    await stack.admin('tenant', 'create', custom);
    await oauthSettings(custom, jwksUrl, 'oauth.algorithms=RS256,RS384', 'oauth.tenant_claim=org');
    const token = await sign({ role: 'Viewer', scope: 'knowledge:read', org: custom }, { alg: 'RS384' });
    expect((await list(custom, token)).status).toBe(200);
    const withoutOrg = await sign({ role: 'Viewer', scope: 'knowledge:read', tenant_id: custom }, { alg: 'RS384' });
    expect((await list(custom, withoutOrg)).status).toBe(401);
  });

  test("when a subject's fresh JWTs (new jti each) go over the tenant's rate limit, then they share one caller's minute", async () => {
    const limited = uniqueId('jwtlimit');
    await stack.admin('tenant', 'create', limited);
    await oauthSettings(limited, jwksUrl, 'rate_limit.requests_per_minute=2');
    const fresh = (jti: string) => sign({ role: 'Viewer', scope: 'knowledge:read', tenant_id: limited, jti });
    const statuses = [];
    for (const jti of ['a', 'b', 'c']) statuses.push((await list(limited, await fresh(jti))).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  test.each([
    ['a JWKS over plain http on another host', ['oauth.jwks_url=http://login.example.test/jwks.json'], /must be https/],
    ['HS256 among the algorithms', ['oauth.algorithms=RS256,HS256'], /algorithms/],
    ['no audience', ['oauth.audience='], /not set: oauth\.audience/],
  ])('when an operator configures %s, then the admin CLI refuses it and nothing is stored', async (_l, sets, why) => {
    const before = await stack.admin('tenant', 'settings', '--tenant', tenant);
    await expect(
      stack.admin('tenant', 'settings', '--tenant', tenant, ...sets.flatMap((s) => ['--set', s])),
    ).rejects.toThrow(why);
    expect(await stack.admin('tenant', 'settings', '--tenant', tenant)).toEqual(before);
  });
});
