/** Which tenant a request is for: the configured one, or the one its host names. */
import { AppError } from '@kb/platform';
import { useGateway, type TestGateway } from './support/gateway';

const CATEGORIES = '/api/knowledge/categories';

async function tenantFor(
  gw: TestGateway,
  headers: Record<string, string>,
): Promise<{ status: number; tenant?: unknown; detail?: unknown }> {
  gw.knowledge.ListCategories = () => ({ categories: [] });
  const before = gw.calls.length;
  const res = await gw.request(CATEGORIES, { headers });
  const call = gw.calls.slice(before).find((c) => c.method === 'ListCategories');
  return {
    status: res.status,
    ...(call ? { tenant: (call.request.caller as { tenant_id: string }).tenant_id } : { detail: res.json.detail }),
  };
}

const resolutions = (gw: TestGateway) =>
  gw.calls.filter((c) => c.method === 'ResolveTenant').map((c) => ({ ...c.request, caller: undefined }));

describe('TENANT_MODE=single', () => {
  const gateway = useGateway({ TENANT_MODE: 'single', TENANT_ID: 'acme' });

  test('when any host is addressed, then the configured tenant answers', async () => {
    expect(await tenantFor(gateway(), { Host: 'other.localhost' })).toEqual({ status: 200, tenant: 'acme' });
    expect(resolutions(gateway())).toEqual([{ tenant_id: 'acme', caller: undefined }]);
  });

  test('when the tenant was resolved a moment ago, then it is not looked up again', async () => {
    await tenantFor(gateway(), { Host: 'x.example' });
    expect(resolutions(gateway())).toHaveLength(1);
  });
});

describe('TENANT_MODE=host', () => {
  const gateway = useGateway({ TENANT_MODE: 'host', DEFAULT_TENANT: 'main' });

  test('when <tenant>.localhost is addressed, then that tenant answers by id', async () => {
    expect(await tenantFor(gateway(), { Host: 'beta.localhost:8080' })).toEqual({ status: 200, tenant: 'beta' });
  });

  test('when <name>.localhost names no tenant id, then it is looked up by host name like any host', async () => {
    const gw = gateway();
    const { ResolveTenant } = gw.knowledge;
    gw.knowledge.ResolveTenant = (req: { host?: string; tenant_id?: string }) => {
      if (req.host === 'my-shop.localhost')
        return { id: 'shop1', name: 'x', hosts: [req.host], settings: {}, created_at: 'a' };
      throw AppError.notFound('Tenant not found');
    };
    try {
      const before = resolutions(gw).length;
      expect(await tenantFor(gw, { Host: 'my-shop.localhost:8080' })).toEqual({ status: 200, tenant: 'shop1' });
      expect(resolutions(gw).slice(before)).toEqual([
        { tenant_id: 'my-shop', caller: undefined },
        { host: 'my-shop.localhost', caller: undefined },
      ]);
      expect(await tenantFor(gw, { Host: 'nobody.localhost' })).toEqual({
        status: 401,
        detail: 'Invalid or expired token',
      });
    } finally {
      Object.assign(gw.knowledge, { ResolveTenant });
    }
  });

  test('when a default host is addressed, then the default tenant answers', async () => {
    expect(await tenantFor(gateway(), { Host: '127.0.0.1:8080' })).toEqual({ status: 200, tenant: 'main' });
  });

  test('when another host is addressed, then it is looked up by host name, case folded', async () => {
    expect(await tenantFor(gateway(), { Host: 'Help.Shop.Example' })).toEqual({
      status: 200,
      tenant: 'host-help.shop.example',
    });
  });

  test('when the host has no tenant, then the 401 of a tenant for a token it does not know', async () => {
    gateway().knowledge.ResolveTenant = (req: { host?: string; tenant_id?: string }) => {
      if (req.host === 'unknown.example') throw AppError.notFound('Tenant not found');
      return { id: req.tenant_id ?? 'x', name: 'x', hosts: [], settings: {}, created_at: 'a' };
    };
    expect(await tenantFor(gateway(), { Host: 'unknown.example' })).toEqual({
      status: 401,
      detail: 'Invalid or expired token',
    });
  });

  test.each([
    ['no Authorization header', null, undefined],
    ['a malformed header', null, 'Basic dXNlcjpwdw=='],
    ['an unknown token', 'kbt_000000000000_nope', undefined],
  ])(
    'when an unknown and a known tenant get %s, then both answer the same 401 (no tenant enumeration)',
    async (_label, token, authorization) => {
      const gw = gateway();
      const { ResolveTenant, AuthenticateApiToken } = gw.knowledge;
      gw.knowledge.ResolveTenant = (req: { tenant_id?: string }) => {
        if (req.tenant_id !== 'known') throw AppError.notFound('Tenant not found');
        return { id: 'known', name: 'Known', hosts: [], settings: {}, created_at: 'a' };
      };
      gw.knowledge.AuthenticateApiToken = () => {
        throw new AppError('unauthenticated', 'Invalid or expired token');
      };
      const ask = (host: string) =>
        gw.request(CATEGORIES, {
          token,
          headers: { Host: host, ...(authorization ? { Authorization: authorization } : {}) },
        });
      const [known, unknown] = [await ask('known.localhost'), await ask('nobody-here.localhost')];
      Object.assign(gw.knowledge, { ResolveTenant, AuthenticateApiToken });
      expect(unknown.status).toBe(401);
      for (const res of [known, unknown]) {
        delete res.headers['x-request-id'];
        delete res.headers.date;
      }
      expect([unknown.status, unknown.headers, unknown.text]).toEqual([known.status, known.headers, known.text]);
    },
  );

  test('when X-Forwarded-Host is sent without TRUST_PROXY, then it is ignored', async () => {
    expect(await tenantFor(gateway(), { Host: 'beta.localhost', 'X-Forwarded-Host': 'gamma.localhost' })).toEqual({
      status: 200,
      tenant: 'beta',
    });
  });
});

describe('TENANT_MODE=host behind a trusted proxy', () => {
  const gateway = useGateway({ TENANT_MODE: 'host', TRUST_PROXY: 'true' });

  test('when X-Forwarded-Host is sent, then its first host names the tenant', async () => {
    expect(
      await tenantFor(gateway(), { Host: 'beta.localhost', 'X-Forwarded-Host': 'gamma.localhost, proxy.internal' }),
    ).toEqual({ status: 200, tenant: 'gamma' });
  });

  test('when a default host is addressed and no default tenant is configured, then 401 as for an unknown tenant', async () => {
    expect(await tenantFor(gateway(), { Host: 'localhost' })).toEqual({
      status: 401,
      detail: 'Invalid or expired token',
    });
  });
});
