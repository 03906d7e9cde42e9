/**
 * PUT /sites/{site_id}/knowledge: records a site on entries and answers
 * {site_id, assigned, already_assigned, not_found}.
 */
import { randomUUID } from 'node:crypto';
import { startStack, uniqueId, type Stack } from '../support/stack';

const ENTRIES = '/api/knowledge/knowledge-entries';

let stack: Stack;
const tenant = uniqueId('sites');
const other = uniqueId('sites-other');
let admin: string;
let agent: string;
let otherAdmin: string;
let category: string;
let siteId: string;
let otherSiteId: string;

/** A site, created through the catalog's site route. */
async function createSite(tenantId: string, token: string, slug: string): Promise<string> {
  const res = await stack.request(tenantId, '/api/knowledge/sites', {
    method: 'POST',
    token,
    body: { slug, name: slug },
  });
  if (res.status !== 201) throw new Error(`site create: ${res.status} ${res.text}`);
  return res.json.id as string;
}

beforeAll(async () => {
  stack = await startStack();
  admin = await stack.tenantWithToken(tenant, 'Admin');
  agent = await stack.token(tenant, 'Agent');
  otherAdmin = await stack.tenantWithToken(other, 'Admin');
  category = (
    await stack.request(tenant, '/api/knowledge/categories', { method: 'POST', token: admin, body: { name: 'c' } })
  ).json.id;
  siteId = await createSite(tenant, admin, 'shop-de');
  otherSiteId = await createSite(other, otherAdmin, 'their-shop');
});
afterAll(async () => {
  await stack?.stop();
});

const entry = async (visibility = 'internal') =>
  (
    await stack.request(tenant, ENTRIES, {
      method: 'POST',
      token: admin,
      body: { title: 't', content: 'c', category_id: category, visibility },
    })
  ).json.id as string;
const assign = (site: string, entry_ids: unknown, token = admin, t = tenant) =>
  stack.request(t, `/api/knowledge/sites/${site}/knowledge`, { method: 'PUT', token, body: { entry_ids } });

describe('site knowledge assignment', () => {
  test('when entries are assigned, then counts say what was new and what was already there; unknown ids are listed', async () => {
    const a = await entry();
    const b = await entry();
    const unknown = randomUUID();
    const first = await assign(siteId, [a, b, unknown]);
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ site_id: siteId, assigned: 2, already_assigned: 0, not_found: [unknown] });
    const again = await assign(siteId, [a, b, a]);
    expect(again.json).toEqual({ site_id: siteId, assigned: 0, already_assigned: 2, not_found: [] });
  });

  test('when the site is given by slug, then the answer names its uuid', async () => {
    const a = await entry();
    const res = await assign('shop-de', [a]);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ site_id: siteId, assigned: 1, already_assigned: 0, not_found: [] });
  });

  test('when entries are not visible to the caller or belong to another tenant, then they count as not found', async () => {
    const restricted = await entry('restricted');
    const theirs = (
      await stack.request(other, '/api/knowledge/categories', {
        method: 'POST',
        token: otherAdmin,
        body: { name: 'x' },
      })
    ).json.id;
    const theirEntry = (
      await stack.request(other, ENTRIES, {
        method: 'POST',
        token: otherAdmin,
        body: { title: 't', content: 'c', category_id: theirs, visibility: 'public' },
      })
    ).json.id;
    const res = await assign(siteId, [restricted, theirEntry], agent);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      site_id: siteId,
      assigned: 0,
      already_assigned: 0,
      not_found: [restricted, theirEntry],
    });
  });

  test('when the site does not exist or is another tenant\'s, then 404 "Site not found"', async () => {
    const a = await entry();
    for (const site of [randomUUID(), otherSiteId, 'no-such-slug']) {
      const res = await assign(site, [a]);
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ detail: 'Site not found' });
    }
  });

  test.each([
    ['no ids', [], 422],
    ['one id', [randomUUID()], 200],
    ['500 ids', Array.from({ length: 500 }, () => randomUUID()), 200],
    ['501 ids', Array.from({ length: 501 }, () => randomUUID()), 422],
    ['a malformed id', ['nope'], 422],
    ['not a list', 'x', 422],
  ])('when entry_ids has %s, then %i', async (_label, ids, status) => {
    const res = await assign(siteId, ids);
    expect(res.status).toBe(status);
    if (status === 422) expect(res.json.detail[0].loc[0]).toBe('body');
    if (status === 200) expect(res.json.not_found).toHaveLength((ids as string[]).length);
  });

  test('when a Viewer (read only) assigns, then 403', async () => {
    const viewer = await stack.token(tenant, 'Viewer');
    expect((await assign(siteId, [randomUUID()], viewer)).status).toBe(403);
  });
});
