/** Who the caller is: the Authorization header, X-Scopes, the audit headers, and OAuth tokens. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type KeyLike } from 'jose';
import { AppError, sha256Hex } from '@kb/platform';
import { IDENTITY, TENANT, TOKEN, startGateway, type TestGateway } from './support/gateway';

const CATEGORIES = '/api/knowledge/categories';
const BEARER = 'Bearer realm="knowledge", error="invalid_token"';

describe('API tokens', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
    gw.knowledge.ListCategories = () => ({ categories: [] });
  });
  afterAll(() => gw.close());

  const lastCaller = () =>
    gw.calls.filter((c) => c.method === 'ListCategories').at(-1)?.request.caller as Record<string, unknown>;

  test('when there is no Authorization header, then 401 asks for a bearer token', async () => {
    const res = await gw.request(CATEGORIES, { token: null });
    expect([res.status, res.json, res.headers['www-authenticate']]).toEqual([
      401,
      { detail: 'Missing bearer token' },
      BEARER,
    ]);
  });

  test.each([
    'Basic dXNlcjpwdw==',
    'Bearer',
    'Bearer a b',
    'Token kbt_x',
    `Bearer  ${TOKEN}`,
    `Bearer\t${TOKEN}`,
    `Bearer ${TOKEN},x`,
  ])('when the header is "%s", then 401 says it is malformed', async (header) => {
    const res = await gw.request(CATEGORIES, { token: null, headers: { Authorization: header } });
    expect([res.status, res.json, res.headers['www-authenticate']]).toEqual([
      401,
      { detail: 'Malformed Authorization header: expected "Bearer <token>"' },
      BEARER,
    ]);
  });

  test.each(['bearer', 'BEARER', 'bEaReR'])(
    'when the scheme is written "%s", then it is the same Bearer scheme (RFC 9110: case-insensitive)',
    async (scheme) => {
      const res = await gw.request(CATEGORIES, { token: null, headers: { Authorization: `${scheme} ${TOKEN}` } });
      expect(res.status).toBe(200);
    },
  );

  test('when the token is neither an API token nor a JWT, then 401 without asking the knowledge service', async () => {
    const before = gw.calls.length;
    const res = await gw.request(CATEGORIES, { token: 'opaque-token' });
    expect([res.status, res.json]).toEqual([401, { detail: 'Invalid or expired token' }]);
    expect(gw.calls.slice(before).map((c) => c.method)).not.toContain('AuthenticateApiToken');
  });

  test('when an API token is sent, then the knowledge service sees only its hash, and the caller carries the identity', async () => {
    const token = 'kbt_not_seen_before_in_this_file';
    const headers = { 'X-Request-Id': 'req-1', 'X-Client-Id': 'shop-sync/1.2' };
    const res = await gw.request(CATEGORIES, { token, headers });
    expect(res.status).toBe(200);
    const auth = gw.calls.filter((c) => c.method === 'AuthenticateApiToken').at(-1)?.request;
    expect(auth).toEqual({ caller: { tenant_id: 'acme', request_id: 'req-1' }, token_sha256: sha256Hex(token) });
    expect(lastCaller()).toEqual({
      tenant_id: 'acme',
      user_id: 'u1',
      role: 'Admin',
      scopes: IDENTITY.scopes,
      workspace_ids: [],
      audit_source: 'api',
      client_id: 'shop-sync/1.2',
      request_id: 'req-1',
      token_id: 't1',
    });
  });

  test('when X-Scopes is sent, then the caller has only the scopes both grant and ask for', async () => {
    await gw.request(CATEGORIES, { headers: { 'X-Scopes': 'knowledge:read  knowledge:delete-everything' } });
    expect(lastCaller().scopes).toEqual(['knowledge:read']);
  });

  test('when X-Scopes is sent empty, then the caller has no scope at all', async () => {
    await gw.request(CATEGORIES, { headers: { 'X-Scopes': '' } });
    expect(lastCaller().scopes).toEqual([]);
  });

  test('when X-Audit-Source is not a short token, then 422 at that header', async () => {
    const res = await gw.request(CATEGORIES, { headers: { 'X-Audit-Source': 'has space' } });
    expect(res.status).toBe(422);
    expect(res.json.detail[0]).toMatchObject({ loc: ['header', 'x-audit-source'], type: 'string_pattern_mismatch' });
  });

  test('when X-Client-Id is too long, then 422 at that header', async () => {
    const res = await gw.request(CATEGORIES, { headers: { 'X-Client-Id': 'x'.repeat(201) } });
    expect([res.status, res.json.detail[0].loc]).toEqual([422, ['header', 'x-client-id']]);
  });

  test('when the knowledge service refuses the token, then its 401 reaches the caller', async () => {
    const { AuthenticateApiToken } = gw.knowledge;
    gw.knowledge.AuthenticateApiToken = () => {
      throw new AppError('unauthenticated', 'Invalid or expired token');
    };
    try {
      const res = await gw.request(CATEGORIES, { token: 'kbt_revoked_token' });
      expect([res.status, res.json, res.headers['www-authenticate']]).toEqual([
        401,
        { detail: 'Invalid or expired token' },
        BEARER,
      ]);
    } finally {
      gw.knowledge.AuthenticateApiToken = AuthenticateApiToken!;
    }
  });
});

describe('OAuth access tokens', () => {
  const ISSUER = 'https://issuer.example';
  const AUDIENCE = 'kb-api';
  let gw: TestGateway;
  let jwks: Server;
  let jwksUrl: string;
  let privateKey: KeyLike;
  // One object, changed in place: the gateway keeps the tenant it resolved for a few seconds.
  const oauth: Record<string, unknown> = {};

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    jwks = createServer((_req, res) =>
      res.setHeader('Content-Type', 'application/json').end(JSON.stringify({ keys: [jwk] })),
    );
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`;
    // The tenant's settings as the knowledge service sends them (defaults filled in); read on every request.
    gw = await startGateway({ AUTH_FAILURES_PER_MINUTE: '0' });
    gw.knowledge.ResolveTenant = () => ({ ...TENANT, settings: { oauth } });
    gw.knowledge.ListCategories = () => ({ categories: [] });
  });
  beforeEach(() => {
    for (const key of Object.keys(oauth)) delete oauth[key];
    Object.assign(oauth, {
      issuer: ISSUER,
      jwks_url: jwksUrl,
      audience: AUDIENCE,
      role_claim: 'kb_role',
      algorithms: ['RS256', 'ES256', 'EdDSA'],
      tenant_claim: 'tenant_id',
    });
  });
  afterAll(async () => {
    await gw.close();
    await new Promise((resolve) => jwks.close(resolve));
  });

  const sign = (claims: Record<string, unknown>, audience: string | null = AUDIENCE) => {
    const jwt = new SignJWT({ tenant_id: TENANT.id, ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setSubject('user-7')
      .setExpirationTime('5m');
    return (audience === null ? jwt : jwt.setAudience(audience)).sign(privateKey);
  };

  test("when a JWT of the tenant's issuer is sent, then the caller is built from its claims, unknown scopes left out", async () => {
    const token = await sign({
      kb_role: 'Agent',
      scope: 'knowledge:read made:up',
      workspace_ids: ['w1', 3],
      jti: 'j1',
    });
    const res = await gw.request(CATEGORIES, { token });
    expect(res.status).toBe(200);
    expect(gw.calls.at(-1)?.request.caller).toMatchObject({
      user_id: 'user-7',
      role: 'Agent',
      scopes: ['knowledge:read'],
      workspace_ids: ['w1'],
      token_id: 'jwt:j1',
    });
  });

  test('when the JWT carries no known role, then 401 says so', async () => {
    const res = await gw.request(CATEGORIES, { token: await sign({ kb_role: 'Pope' }) });
    expect([res.status, res.json]).toEqual([401, { detail: 'Token carries no valid role' }]);
  });

  test('when the JWT is of another issuer, then the plain 401', async () => {
    const token = await new SignJWT({ kb_role: 'Admin', tenant_id: TENANT.id })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setAudience(AUDIENCE)
      .setIssuer('https://evil.example')
      .setSubject('x')
      .setExpirationTime('5m')
      .sign(privateKey);
    const res = await gw.request(CATEGORIES, { token });
    expect([res.status, res.json]).toEqual([401, { detail: 'Invalid or expired token' }]);
  });

  test.each([
    ['no audience', () => sign({ kb_role: 'Admin' }, null)],
    ['another audience', () => sign({ kb_role: 'Admin' }, 'other-api')],
    ['no tenant claim', () => sign({ kb_role: 'Admin', tenant_id: undefined })],
    ["another tenant's claim", () => sign({ kb_role: 'Admin', tenant_id: 'globex' })],
    [
      'the tenant id in another claim than the configured one',
      () => sign({ kb_role: 'Admin', org: TENANT.id, tenant_id: 'x' }),
    ],
  ])('when the JWT has %s, then the plain 401', async (_label, make) => {
    const res = await gw.request(CATEGORIES, { token: await make() });
    expect([res.status, res.json]).toEqual([401, { detail: 'Invalid or expired token' }]);
  });

  test('when the tenant names its own tenant claim, then that claim is the one checked', async () => {
    oauth.tenant_claim = 'org';
    expect((await gw.request(CATEGORIES, { token: await sign({ kb_role: 'Admin', org: TENANT.id }) })).status).toBe(
      200,
    );
    expect((await gw.request(CATEGORIES, { token: await sign({ kb_role: 'Admin' }) })).status).toBe(401);
  });

  test("when the JWT's algorithm is not one the tenant allows, then 401 even with a valid signature", async () => {
    const token = await sign({ kb_role: 'Admin' });
    expect((await gw.request(CATEGORIES, { token })).status).toBe(200);
    oauth.algorithms = ['ES256'];
    expect((await gw.request(CATEGORIES, { token })).status).toBe(401);
  });

  test('when a JWT is signed with HS256 (the JWKS key read as a shared secret), then 401', async () => {
    const token = await new SignJWT({ kb_role: 'Admin', tenant_id: TENANT.id })
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('user-7')
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('a-secret-anyone-could-guess-32by'));
    oauth.algorithms = ['HS256', 'RS256'];
    expect((await gw.request(CATEGORIES, { token })).status).toBe(401);
  });

  test.each([
    ['no audience', { audience: '' }],
    ['a JWKS over plain http to another host', { jwks_url: 'http://issuer.example/jwks' }],
  ])('when the stored settings have %s, then no JWT is accepted', async (_label, change) => {
    Object.assign(oauth, change);
    const res = await gw.request(CATEGORIES, { token: await sign({ kb_role: 'Admin' }) });
    expect([res.status, res.json]).toEqual([401, { detail: 'Invalid or expired token' }]);
  });
});
