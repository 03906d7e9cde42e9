/**
 * The gateway keeps an API token's identity for TOKEN_CACHE_TTL_MS: requests within it make no
 * call, a revoked token is refused once it ends, and the per-request headers still apply.
 */
import { AppError } from '@kb/platform';
import { loadGatewayConfig } from '../src/config';
import { IDENTITY, startGateway, type TestGateway } from './support/gateway';

const CATEGORIES = '/api/knowledge/categories';
const TTL_MS = 400;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('an API token seen again within TOKEN_CACHE_TTL_MS', () => {
  let gw: TestGateway;
  let revoked = false;
  const checks = () => gw.calls.filter((c) => c.method === 'AuthenticateApiToken').length;
  const lastCaller = () => gw.calls.filter((c) => c.method === 'ListCategories').at(-1)?.request.caller;

  beforeEach(async () => {
    gw = await startGateway({ TOKEN_CACHE_TTL_MS: String(TTL_MS) });
    revoked = false;
    gw.knowledge.AuthenticateApiToken = () => {
      if (revoked) throw new AppError('unauthenticated', 'Invalid or expired token');
      return IDENTITY;
    };
    gw.knowledge.ListCategories = () => ({ categories: [] });
  });
  afterEach(() => gw.close());

  test('when it comes again, then the knowledge service is not asked, and X-Scopes and the audit headers are read anew', async () => {
    expect((await gw.request(CATEGORIES)).status).toBe(200);
    const res = await gw.request(CATEGORIES, {
      headers: { 'X-Scopes': 'knowledge:read', 'X-Audit-Source': 'mcp', 'X-Client-Id': 'bot/1' },
    });
    expect(res.status).toBe(200);
    expect(checks()).toBe(1);
    expect(lastCaller()).toMatchObject({ scopes: ['knowledge:read'], audit_source: 'mcp', client_id: 'bot/1' });
    expect((await gw.request(CATEGORIES, { headers: { 'X-Audit-Source': 'bad value' } })).status).toBe(422);
  });

  test('when it is revoked, then it is refused once its identity is older than the TTL, and checked every time after', async () => {
    expect((await gw.request(CATEGORIES)).status).toBe(200);
    revoked = true;
    const start = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - start < TTL_MS + 1000) {
      status = (await gw.request(CATEGORIES)).status;
      if (status === 200) await sleep(20);
    }
    expect(status).toBe(401);
    expect(Date.now() - start).toBeLessThanOrEqual(TTL_MS + 200);
    const before = checks();
    expect((await gw.request(CATEGORIES)).status).toBe(401);
    expect(checks()).toBe(before + 1); // a refusal is not kept
  });
});

test('when TOKEN_CACHE_TTL_MS is above the documented 5 s bound, then the gateway does not start', () => {
  const env = {
    TENANT_MODE: 'single',
    TENANT_ID: 'acme',
    SERVICE_AUTH_SECRET: 'a unit-test secret of thirty-two bytes',
    TOKEN_CACHE_TTL_MS: '60000',
  };
  expect(() => loadGatewayConfig(env)).toThrow(/TOKEN_CACHE_TTL_MS/);
});
