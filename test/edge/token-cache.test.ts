/**
 * The caches on the request path, as a caller meets them on the real stack: the gateway keeps an
 * API token's identity and the knowledge service a tenant's settings for at most 5 s (the bound
 * docs/threat-model.md documents), so a revoked token and a lowered visibility ceiling take
 * effect within it, and a token's own expiry is honoured to the moment.
 */
import { startStack, uniqueId, type Stack } from '../support/stack';

/** The documented bound (TOKEN_CACHE_TTL_MS and TENANT_SETTINGS_CACHE_TTL_MS default and maximum). */
const BOUND_MS = 5000;
/** Room for the request and the scheduling on a loaded 2-core machine. */
const MARGIN_MS = 750;
const CATEGORIES = '/api/knowledge/categories';
const ENTRIES = '/api/knowledge/knowledge-entries';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

/** Polls until `status` answers something other than `from`; the status, and when it came. */
async function untilChanged(from: number, status: () => Promise<number>, withinMs: number) {
  const start = Date.now();
  for (;;) {
    const got = await status();
    if (got !== from || Date.now() - start > withinMs) return { status: got, at: Date.now() };
    await sleep(25);
  }
}

test('when a token in use is revoked, then it is refused within the documented 5 s, and it worked right before', async () => {
  const tenant = uniqueId('revoke');
  const token = await stack.tenantWithToken(tenant, 'Agent');
  const categories = async () => (await stack.request(tenant, CATEGORIES, { token })).status;
  for (let i = 0; i < 3; i++) expect(await categories()).toBe(200); // in use, so its identity is kept
  const id = token.split('_')[1] as string;
  await stack.admin('token', 'revoke', '--tenant', tenant, id);
  const revokedAt = Date.now();
  const refused = await untilChanged(200, categories, BOUND_MS + 2 * MARGIN_MS);
  expect(refused.status).toBe(401);
  expect(refused.at - revokedAt).toBeLessThanOrEqual(BOUND_MS + MARGIN_MS);
  // Refused from then on: a refusal is never kept as a success.
  await sleep(100);
  expect(await categories()).toBe(401);
});

test("when a token expires while in use, then it is refused at its expiry, not a cache's life later", async () => {
  const tenant = uniqueId('expiry');
  await stack.admin('tenant', 'create', tenant);
  // 0.00004 days: about 3.5 s.
  const out = await stack.admin('token', 'create', '--tenant', tenant, '--role', 'Agent', '--expires-in', '0.00004');
  const token = out.at(-1) as string;
  const expiresAt = Date.parse(/expires (\S+)\)/.exec(out.join('\n'))?.[1] ?? '');
  expect(Number.isFinite(expiresAt)).toBe(true);
  const categories = async () => (await stack.request(tenant, CATEGORIES, { token })).status;
  expect(await categories()).toBe(200);
  const refused = await untilChanged(200, categories, BOUND_MS + 2 * MARGIN_MS);
  expect(refused.status).toBe(401);
  // A request that started just before the expiry may be answered just after it.
  expect(refused.at).toBeGreaterThanOrEqual(expiresAt);
  expect(refused.at - expiresAt).toBeLessThanOrEqual(MARGIN_MS);
});

test("when a tenant lowers a role's visibility ceiling, then that role's readers lose sight within the documented 5 s", async () => {
  const tenant = uniqueId('ceiling');
  const admin = await stack.tenantWithToken(tenant, 'Admin');
  const agent = await stack.token(tenant, 'Agent');
  const category = (await stack.request(tenant, CATEGORIES, { method: 'POST', token: admin, body: { name: 'c' } })).json
    .id;
  const entry = (
    await stack.request(tenant, ENTRIES, {
      method: 'POST',
      token: admin,
      body: { title: 'Internal', content: 'For staff.', category_id: category, visibility: 'internal' },
    })
  ).json;
  const read = async () => (await stack.request(tenant, `${ENTRIES}/${entry.id}`, { token: agent })).status;
  expect(await read()).toBe(200); // the tenant's settings are now kept
  await stack.admin('tenant', 'settings', '--tenant', tenant, '--set', 'role_visibility_ceilings.Agent=public');
  const changedAt = Date.now();
  const hidden = await untilChanged(200, read, BOUND_MS + 2 * MARGIN_MS);
  expect(hidden.status).toBe(404);
  expect(hidden.at - changedAt).toBeLessThanOrEqual(BOUND_MS + MARGIN_MS);
});
