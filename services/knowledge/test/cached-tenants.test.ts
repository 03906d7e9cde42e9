/** Tenants kept for entry use cases: read once per TTL, concurrent reads shared, unknown ones not kept. */
import { cachedTenantReads } from '../src/data-access/cached-tenants';
import type { TenantsRepo } from '../src/data-access/tenants-repo';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function repo() {
  const reads: string[] = [];
  let settings: Record<string, unknown> = { workspaces_enabled: false };
  const tenants = {
    findById: async (id: string) => {
      reads.push(id);
      await sleep(5);
      return id === 'nobody' ? null : { id, name: id, hosts: [], settings, created_at: new Date() };
    },
  } as unknown as TenantsRepo;
  return { tenants, reads, change: (s: Record<string, unknown>) => void (settings = s) };
}

test('when a tenant is read again within the TTL, then MongoDB is read once; after it, the change shows', async () => {
  const { tenants, reads, change } = repo();
  const cached = cachedTenantReads(tenants, 150);
  expect((await cached.findById('acme'))?.settings).toEqual({ workspaces_enabled: false });
  change({ workspaces_enabled: true });
  expect((await cached.findById('acme'))?.settings).toEqual({ workspaces_enabled: false });
  expect(reads).toEqual(['acme']);
  await sleep(200);
  expect((await cached.findById('acme'))?.settings).toEqual({ workspaces_enabled: true });
  expect(reads).toEqual(['acme', 'acme']);
});

test('when several requests read a tenant not kept at once, then one read answers them all', async () => {
  const { tenants, reads } = repo();
  const cached = cachedTenantReads(tenants, 5000);
  await Promise.all([1, 2, 3].map(() => cached.findById('acme')));
  expect(reads).toEqual(['acme']);
});

test('when the tenant does not exist, then null, and it is read again next time', async () => {
  const { tenants, reads } = repo();
  const cached = cachedTenantReads(tenants, 5000);
  expect(await cached.findById('nobody')).toBeNull();
  expect(await cached.findById('nobody')).toBeNull();
  expect(reads).toEqual(['nobody', 'nobody']);
});

test('when the TTL is 0, then every call reads', async () => {
  const { tenants, reads } = repo();
  const cached = cachedTenantReads(tenants, 0);
  await cached.findById('acme');
  await cached.findById('acme');
  expect(reads).toEqual(['acme', 'acme']);
});
