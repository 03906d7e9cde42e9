/** Which tenant a request is for: the configured one, or the one its host names. */
import { AppError } from '@kb/common';
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

  test('when a default host is addressed, then the default tenant answers', async () => {
    expect(await tenantFor(gateway(), { Host: '127.0.0.1:8080' })).toEqual({ status: 200, tenant: 'main' });
  });

  test('when another host is addressed, then it is looked up by host name, case folded', async () => {
    expect(await tenantFor(gateway(), { Host: 'Help.Shop.Example' })).toEqual({
      status: 200,
      tenant: 'host-help.shop.example',
    });
  });

  test('when the host has no tenant, then 404 "Tenant not found"', async () => {
    gateway().knowledge.ResolveTenant = (req: { host?: string; tenant_id?: string }) => {
      if (req.host === 'unknown.example') throw AppError.notFound('Tenant not found');
      return { id: req.tenant_id ?? 'x', name: 'x', hosts: [], settings: {}, created_at: 'a' };
    };
    expect(await tenantFor(gateway(), { Host: 'unknown.example' })).toEqual({
      status: 404,
      detail: 'Tenant not found',
    });
  });

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

  test('when a default host is addressed and no default tenant is configured, then 404', async () => {
    expect(await tenantFor(gateway(), { Host: 'localhost' })).toEqual({ status: 404, detail: 'Tenant not found' });
  });
});
