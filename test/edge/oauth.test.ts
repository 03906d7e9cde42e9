/**
 * OAuth access tokens: JWTs verified against the tenant's configured issuer (JWKS URL,
 * audience), served here by a real JWKS endpoint on 127.0.0.1.
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
const plain = uniqueId('plain');

async function sign(
  claims: Record<string, unknown>,
  options: { key?: KeyLike; issuer?: string; audience?: string; expiresIn?: string } = {},
) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setSubject(USER)
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '5m')
    .sign(options.key ?? key);
}

beforeAll(async () => {
  ({ privateKey: key } = await generateKeyPair('RS256'));
  ({ privateKey: otherKey } = await generateKeyPair('RS256'));
  const publicKey = await exportPublic(key);
  jwks = createServer((req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ keys: [publicKey] }));
  });
  await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', r));
  const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`;

  stack = await startStack();
  await stack.admin('tenant', 'create', tenant);
  await stack.admin(
    'tenant',
    'settings',
    '--tenant',
    tenant,
    '--set',
    `oauth.issuer=${ISSUER}`,
    '--set',
    `oauth.jwks_url=${jwksUrl}`,
    '--set',
    `oauth.audience=${AUDIENCE}`,
  );
  await stack.admin('tenant', 'create', plain);
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
