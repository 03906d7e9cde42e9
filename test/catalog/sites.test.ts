/**
 * Sites through the gateway: list, get, create (extension), update with the null rules,
 * delete (extension, knowledge:admin) and exactly one default site per tenant.
 */
import { startStack, uniqueId, type Stack } from '../support/stack';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let stack: Stack;
const acme = uniqueId('acme');
const globex = uniqueId('globex');
let admin: string;
let agent: string;
let viewer: string;
let globexAdmin: string;

beforeAll(async () => {
  stack = await startStack();
  admin = await stack.tenantWithToken(acme, 'Admin');
  agent = await stack.token(acme, 'Agent');
  viewer = await stack.token(acme, 'Viewer');
  globexAdmin = await stack.tenantWithToken(globex, 'Admin');
});
afterAll(async () => {
  await stack?.stop();
});

const createSite = (tenant: string, token: string, body: unknown) =>
  stack.request(tenant, '/api/knowledge/sites', { method: 'POST', token, body });
const put = (tenant: string, token: string, id: string, body: unknown) =>
  stack.request(tenant, `/api/knowledge/sites/${id}`, { method: 'PUT', token, body });
const list = async (tenant: string, token: string) =>
  (await stack.request(tenant, '/api/knowledge/sites', { token })).json as {
    id: string;
    slug: string;
    is_default: boolean;
  }[];
const defaults = async (tenant: string, token: string) =>
  (await list(tenant, token)).filter((s) => s.is_default).map((s) => s.slug);

describe('sites', () => {
  test('when a site is created, then it is answered 201 with every field, and the first site of a tenant is its default', async () => {
    const tenant = uniqueId('first');
    const token = await stack.tenantWithToken(tenant);
    const res = await createSite(tenant, token, { slug: 'shop-de', name: 'Shop DE' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.json).sort()).toEqual([
      'config',
      'created_at',
      'domain',
      'id',
      'is_default',
      'language',
      'name',
      'platform',
      'site_type',
      'slug',
      'tenant_id',
    ]);
    expect(res.json).toMatchObject({
      tenant_id: tenant,
      slug: 'shop-de',
      name: 'Shop DE',
      domain: null,
      platform: null,
      config: {},
      is_default: true,
      language: 'de',
      site_type: 'shop',
    });
    expect(res.json.id).toMatch(UUID);
    expect(res.headers.location).toBe(`/api/knowledge/sites/${res.json.id}`);
    const got = await stack.request(tenant, `/api/knowledge/sites/${res.json.id}`, {
      token: await stack.token(tenant, 'Viewer'),
    });
    expect(got.status).toBe(200);
    expect(got.json).toEqual(res.json);
    const second = await createSite(tenant, token, {
      slug: 'shop-at',
      name: 'Shop AT',
      domain: 'shop.at',
      platform: 'shopify',
      config: { a: { b: 1 } },
      language: 'de-AT',
      site_type: 'marketplace',
    });
    expect(second.json).toMatchObject({
      is_default: false,
      domain: 'shop.at',
      platform: 'shopify',
      config: { a: { b: 1 } },
      language: 'de-AT',
      site_type: 'marketplace',
    });
    expect(await defaults(tenant, token)).toEqual(['shop-de']);
  });

  test('when a slug is taken in the tenant, then 409; the same slug in another tenant is fine', async () => {
    expect((await createSite(acme, admin, { slug: 'dup', name: 'A' })).status).toBe(201);
    const again = await createSite(acme, admin, { slug: 'dup', name: 'B' });
    expect(again.status).toBe(409);
    expect(again.json.detail).toMatch(/slug/);
    expect((await createSite(globex, globexAdmin, { slug: 'dup', name: 'G' })).status).toBe(201);
  });

  test('when a site is created with bad fields, then 422 and nothing is written', async () => {
    const before = (await list(acme, admin)).length;
    for (const body of [
      { slug: 'x', name: '' },
      { slug: 'x', name: 'n'.repeat(201) },
      { slug: 'Bad Slug', name: 'n' },
      { slug: '7c6a2f4e-5b0d-4a53-9a37-0d2a4b9f1c11', name: 'uuid-like' },
      { slug: 'x', name: 'n', site_type: 's'.repeat(51) },
      { slug: 'x', name: 'n', unknown: 1 },
      { name: 'no slug' },
    ]) {
      const res = await createSite(acme, admin, body);
      expect([res.status, body]).toEqual([422, body]);
      expect(Array.isArray(res.json.detail)).toBe(true);
    }
    expect((await list(acme, admin)).length).toBe(before);
  });

  test('when name is 200 characters and site_type 50, then they are accepted', async () => {
    const res = await createSite(acme, admin, { slug: 'bounds', name: 'n'.repeat(200), site_type: 's'.repeat(50) });
    expect(res.status).toBe(201);
  });

  test('when a site is updated, then only sent fields change; null clears domain and platform and leaves the others', async () => {
    const site = (
      await createSite(acme, admin, {
        slug: 'upd',
        name: 'Before',
        domain: 'a.example',
        platform: 'magento',
        site_type: 'shop',
        config: { k: 1 },
      })
    ).json;
    const res = await put(acme, agent, site.id, { name: 'After' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      name: 'After',
      domain: 'a.example',
      platform: 'magento',
      config: { k: 1 },
      slug: 'upd',
    });
    const nulls = await put(acme, agent, site.id, {
      name: null,
      domain: null,
      platform: null,
      site_type: null,
      config: null,
      is_default: null,
    });
    expect(nulls.status).toBe(200);
    expect(nulls.json).toMatchObject({
      name: 'After',
      domain: null,
      platform: null,
      site_type: 'shop',
      config: { k: 1 },
      is_default: false,
    });
    const cfg = await put(acme, agent, site.id, { config: { other: true }, site_type: 'b2b' });
    expect(cfg.json).toMatchObject({ config: { other: true }, site_type: 'b2b' });
    expect((await put(acme, agent, site.id, { slug: 'renamed' })).status).toBe(422);
    expect((await put(acme, agent, site.id, { name: '' })).status).toBe(422);
    expect((await put(acme, agent, site.id, { site_type: 's'.repeat(51) })).status).toBe(422);
  });

  test(
    'when another site is made the default, then the previous one stops ' +
      'being it: exactly one default, also under concurrent switches',
    async () => {
      const tenant = uniqueId('defaults');
      const token = await stack.tenantWithToken(tenant);
      const ids: string[] = [];
      for (const slug of ['a', 'b', 'c', 'd'])
        ids.push((await createSite(tenant, token, { slug, name: slug })).json.id);
      const made = await put(tenant, token, ids[1] as string, { is_default: true });
      expect(made.json.is_default).toBe(true);
      expect(await defaults(tenant, token)).toEqual(['b']);
      const created = await createSite(tenant, token, { slug: 'e', name: 'e', is_default: true });
      expect(created.json.is_default).toBe(true);
      expect(await defaults(tenant, token)).toEqual(['e']);
      await Promise.all(ids.map((id) => put(tenant, token, id, { is_default: true })));
      expect((await defaults(tenant, token)).length).toBe(1);
      expect((await list(tenant, token))[0]?.is_default).toBe(true); // the default is listed first
    },
  );

  test('when the default site is un-defaulted or deleted while other sites exist, then 409 and it stays the default', async () => {
    const tenant = uniqueId('undefault');
    const token = await stack.tenantWithToken(tenant);
    const a = (await createSite(tenant, token, { slug: 'a', name: 'a' })).json;
    const b = (await createSite(tenant, token, { slug: 'b', name: 'b' })).json;
    const off = await put(tenant, token, a.id, { is_default: false });
    expect(off.status).toBe(409);
    expect((await stack.request(tenant, `/api/knowledge/sites/${a.id}`, { method: 'DELETE', token })).status).toBe(409);
    expect(await defaults(tenant, token)).toEqual(['a']);
    expect((await put(tenant, token, b.id, { is_default: false })).json.is_default).toBe(false);
    const delB = await stack.request(tenant, `/api/knowledge/sites/${b.id}`, { method: 'DELETE', token });
    expect(delB.status).toBe(204);
    expect((await stack.request(tenant, `/api/knowledge/sites/${b.id}`, { token })).status).toBe(404);
    // The only site left may go.
    expect((await stack.request(tenant, `/api/knowledge/sites/${a.id}`, { method: 'DELETE', token })).status).toBe(204);
    expect(await list(tenant, token)).toEqual([]);
  });

  test('when a site has products, then it cannot be deleted (409)', async () => {
    const site = (await createSite(acme, admin, { slug: 'with-products', name: 'p' })).json;
    expect(
      (
        await stack.request(acme, '/api/knowledge/products?site_id=with-products', {
          method: 'POST',
          token: admin,
          body: { title: 'T', language: 'de' },
        })
      ).status,
    ).toBe(201);
    const res = await stack.request(acme, `/api/knowledge/sites/${site.id}`, { method: 'DELETE', token: admin });
    expect(res.status).toBe(409);
    expect(res.json.detail).toMatch(/products/);
  });

  test('when scopes are missing, then writes are 403: create and update need knowledge:write, delete knowledge:admin', async () => {
    const site = (await createSite(acme, admin, { slug: 'scopes', name: 's' })).json;
    expect((await createSite(acme, viewer, { slug: 'viewer', name: 'v' })).status).toBe(403);
    expect((await put(acme, viewer, site.id, { name: 'v' })).status).toBe(403);
    expect(
      (await stack.request(acme, `/api/knowledge/sites/${site.id}`, { method: 'DELETE', token: agent })).status,
    ).toBe(403);
    expect((await stack.request(acme, `/api/knowledge/sites/${site.id}`, { token: viewer })).status).toBe(200);
  });

  test("when another tenant's site id is used, then it is 404 like an unknown one, and lists never mix tenants", async () => {
    const site = (await createSite(acme, admin, { slug: 'private', name: 'p' })).json;
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { name: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await stack.request(globex, `/api/knowledge/sites/${site.id}`, { method, token: globexAdmin, body });
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ detail: 'Site not found' });
    }
    expect((await list(globex, globexAdmin)).some((s) => s.id === site.id)).toBe(false);
    expect((await stack.request(acme, '/api/knowledge/sites/not-a-uuid', { token: admin })).status).toBe(422);
  });

  test(
    'when the OpenAPI document is fetched, then it describes the ' +
      'catalog routes, marks the extensions, and states the bounds',
    async () => {
      const doc = (await stack.request(acme, '/api/knowledge/openapi.json')).json;
      const p = doc.paths;
      expect(p['/api/knowledge/sites'].post['x-extension']).toBe(true);
      expect(p['/api/knowledge/sites/{site_id}'].delete['x-extension']).toBe(true);
      expect(p['/api/knowledge/sites/{site_id}'].put['x-extension']).toBeUndefined();
      expect(p['/api/knowledge/products'].post['x-extension']).toBeUndefined();
      expect(p['/api/knowledge/products/bulk'].post['x-extension']).toBe(true);
      expect(p['/api/knowledge/search/products'].post['x-extension']).toBe(true);
      expect(p['/api/knowledge/search/similar'].post['x-extension']).toBeUndefined();
      const s = doc.components.schemas;
      expect(s.SimilarSearch.properties.anchor_product_ids).toMatchObject({ minItems: 1, maxItems: 10 });
      expect(s.SimilarSearch.properties.limit).toMatchObject({ minimum: 1, maximum: 50, default: 8 });
      expect(Object.keys(s.SimilarSearch.properties)).toEqual(
        expect.arrayContaining(['anchor_weights', 'min_score', 'collapse_variants', 'explain']),
      );
      expect(s.ProductCreate.properties.sku.anyOf[0]).toMatchObject({ maxLength: 100 });
      expect(s.Product.properties.price_current.anyOf[0].pattern).toBe('^(?!^[-+.]*$)[+-]?0*\\d*\\.?\\d*$');
      expect(s.ProductBulk.properties.products).toMatchObject({ maxItems: 1000 });
    },
  );
});
