/**
 * A deleted site leaves no id behind on knowledge entries (`site_ids`), also when assignments
 * race the delete: many rounds of one DELETE /sites/{id} against several
 * PUT /sites/{id}/knowledge at once, then MongoDB is read directly. The delete records the site
 * as deleted before it sweeps; an assignment writes before it asks whether the site was deleted
 * (and takes its writes back when it was), so whatever the order, no entry keeps the id.
 */
import mongoose from 'mongoose';
import { startStack, uniqueId, type Stack } from '../support/stack';

const API = '/api/knowledge';
const ROUNDS = 12;

let stack: Stack;
let db: mongoose.Connection;
const tenant = uniqueId('site-del');
let token: string;
let category: string;

beforeAll(async () => {
  stack = await startStack();
  db = await mongoose.createConnection(stack.mongoUri).asPromise();
  token = await stack.tenantWithToken(tenant, 'Admin');
  // The default site stays, so the sites the rounds delete are never the default.
  expect((await call('POST', '/sites', { slug: 'main', name: 'Main' })).status).toBe(201);
  category = (await call('POST', '/categories', { name: 'c' })).json.id;
}, 60_000);
afterAll(async () => {
  await db?.close();
  await stack?.stop();
});

const call = (method: string, path: string, body?: unknown) =>
  stack.request(tenant, `${API}${path}`, { method, token, ...(body === undefined ? {} : { body }) });
const newEntry = async (i: number) => {
  const res = await call('POST', '/knowledge-entries', {
    title: `e${i}`,
    content: 'c',
    category_id: category,
    visibility: 'internal',
  });
  expect(res.status).toBe(201);
  return res.json.id as string;
};
const newSite = async (slug: string) => {
  const res = await call('POST', '/sites', { slug, name: slug });
  expect(res.status).toBe(201);
  return res.json.id as string;
};
/** Entries of the tenant, as stored, that name one of `siteIds`. */
const entriesNaming = async (siteIds: string[]) =>
  db
    .collection('knowledge_entries')
    .find({ tenant_id: tenant, site_ids: { $in: siteIds } })
    .toArray();

describe('deleting a site', () => {
  test('when a site with assigned entries is deleted, then no entry names it, and assigning to it afterwards is 404', async () => {
    const entries = await Promise.all([0, 1, 2].map(newEntry));
    const site = await newSite('plain');
    const assigned = await call('PUT', `/sites/${site}/knowledge`, { entry_ids: entries });
    expect(assigned.json).toMatchObject({ assigned: 3 });
    expect(await entriesNaming([site])).toHaveLength(3);
    expect((await call('DELETE', `/sites/${site}`)).status).toBe(204);
    expect(await entriesNaming([site])).toHaveLength(0);
    const again = await call('PUT', `/sites/${site}/knowledge`, { entry_ids: entries });
    expect(again.status).toBe(404);
    expect(again.json).toEqual({ detail: 'Site not found' });
    expect(await entriesNaming([site])).toHaveLength(0);
    // A retried delete is a 404 and still leaves nothing behind.
    expect((await call('DELETE', `/sites/${site}`)).status).toBe(404);
  });

  test('when assignments race the delete of their site in many rounds, then no entry is left naming a deleted site', async () => {
    const entries = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => newEntry(100 + i)));
    const deleted: string[] = [];
    const statuses = new Map<string, number>();
    const count = (key: string) => statuses.set(key, (statuses.get(key) ?? 0) + 1);
    for (let round = 0; round < ROUNDS; round++) {
      const site = await newSite(`r${round}`);
      // Half of the entries already on the site before the race, so the sweep has work too.
      await call('PUT', `/sites/${site}/knowledge`, { entry_ids: entries.slice(0, 3) });
      const assign = (ids: string[], delayMs: number) =>
        new Promise((r) => setTimeout(r, delayMs)).then(() =>
          call('PUT', `/sites/${site}/knowledge`, { entry_ids: ids }),
        );
      const [del, ...assigns] = await Promise.all([
        call('DELETE', `/sites/${site}`),
        assign(entries.slice(3), 0),
        assign(entries.slice(2, 5), round % 4),
        assign(entries, 2 + (round % 3)),
      ]);
      expect(del.status).toBe(204);
      deleted.push(site);
      for (const a of assigns) {
        expect([200, 404]).toContain(a.status);
        count(`assign ${a.status}`);
      }
      expect(await entriesNaming(deleted)).toEqual([]);
    }
    // Both outcomes of the race happened at least once over the rounds (else it raced nothing).
    expect(statuses.get('assign 404') ?? 0).toBeGreaterThan(0);
  });
});
