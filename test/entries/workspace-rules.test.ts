/**
 * Workspace rules through the gateway, with workspaces enabled: workspace-only content (a
 * workspace skill in the skill index, on every read route) reaches members only, and no write
 * puts an entry into a workspace its caller is not a member of.
 */
import { startStack, uniqueId, type Stack } from '../support/stack';

const ENTRIES = '/api/knowledge/knowledge-entries';
const WS_A = '4a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const WS_B = '5b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e';
const MEMBERS_ONLY = { detail: 'Workspace entries can only be written by members of that workspace' };
const SECRET = 'Quokkaforge';

let stack: Stack;
const tenant = uniqueId('wsrules');
/** member: Supervisor in WS_A; outsider: Supervisor in WS_B; admin: Admin in WS_A. */
const tokens: Record<'admin' | 'member' | 'outsider', string> = { admin: '', member: '', outsider: '' };
let category: string;

beforeAll(async () => {
  // Settings flip between two requests here; the 5 s cache of them is tested in test/edge/token-cache.test.ts.
  stack = await startStack({ env: { TENANT_SETTINGS_CACHE_TTL_MS: '0' } });
  tokens.admin = await stack.tenantWithToken(tenant, 'Admin', ['--workspace', WS_A]);
  tokens.member = await stack.token(tenant, 'Supervisor', ['--workspace', WS_A]);
  tokens.outsider = await stack.token(tenant, 'Supervisor', ['--workspace', WS_B]);
  await stack.admin('tenant', 'settings', '--tenant', tenant, '--set', 'workspaces_enabled=true');
  category = (
    await stack.request(tenant, '/api/knowledge/categories', {
      method: 'POST',
      token: tokens.admin,
      body: { name: 'c' },
    })
  ).json.id;
});
afterAll(async () => {
  await stack?.stop();
});

const as = (who: keyof typeof tokens, path: string, init: { method?: string; body?: unknown } = {}) =>
  stack.request(tenant, path, { ...init, token: tokens[who] });
const create = (who: keyof typeof tokens, body: Record<string, unknown>) =>
  as(who, ENTRIES, {
    method: 'POST',
    body: { title: 't', content: 'c', category_id: category, visibility: 'internal', ...body },
  });
const skill = (who: keyof typeof tokens, title: string, extra: Record<string, unknown>) =>
  create(who, { title, type: 'skill', metadata: { trigger_description: `when ${title} comes up` }, ...extra });

describe('the skill index shows workspace skills to members only', () => {
  let open: string;
  let hidden: string;
  let indexId: string;

  beforeAll(async () => {
    const first = await skill('member', 'Refund policy', {});
    expect(first.json).toMatchObject({ type: 'skill' });
    open = first.json.id;
    const res = await skill('member', `${SECRET} escalation`, { visibility: 'workspace', workspace_id: WS_A });
    expect(res.status).toBe(201);
    hidden = res.json.id;
    const index = await as('admin', `${ENTRIES}?type=skill_index`);
    expect(index.json).toHaveLength(1);
    indexId = index.json[0].id;
  });

  const skillIds = (index: { metadata: { skills: { id: string }[] } }) => index.metadata.skills.map((s) => s.id);

  test('when a member lists or gets the index, then it names every skill, the workspace one too', async () => {
    const [listed] = (await as('member', `${ENTRIES}?type=skill_index`)).json;
    expect(skillIds(listed)).toEqual([open, hidden]);
    expect(listed.content).toContain(SECRET);
    expect((await as('member', `${ENTRIES}/${indexId}`)).json.content).toContain(SECRET);
  });

  test('when a non-member lists, gets or reads history or translations of the index, then none shows the workspace skill', async () => {
    const [listed] = (await as('outsider', `${ENTRIES}?type=skill_index`)).json;
    expect(skillIds(listed)).toEqual([open]);
    expect(listed.summary).toBe('1 skill');
    const got = await as('outsider', `${ENTRIES}/${indexId}`);
    expect(got.status).toBe(200);
    expect(skillIds(got.json)).toEqual([open]);
    const versions = await as('outsider', `${ENTRIES}/${indexId}/versions`);
    expect(versions.status).toBe(200);
    expect(versions.json.length).toBeGreaterThan(0);
    const translations = await as('outsider', `${ENTRIES}/${indexId}/translations`);
    expect(translations.status).toBe(200);
    for (const body of [listed, got.json, versions.json, translations.json]) {
      expect(JSON.stringify(body)).not.toContain(SECRET);
      expect(JSON.stringify(body)).not.toContain(hidden);
    }
    // The whole list route too: no entry of any type shows it.
    expect(JSON.stringify((await as('outsider', `${ENTRIES}?limit=500`)).json)).not.toContain(SECRET);
  });

  test('when a non-member searches for the workspace skill, then no hit shows it, while a member finds it', async () => {
    const search = (who: keyof typeof tokens) =>
      as(who, '/api/knowledge/search/entries', { method: 'POST', body: { query: `${SECRET} escalation`, limit: 50 } });
    // The member's hit proves the index is searchable by then (indexing answers before the write, or catches up).
    let found = false;
    for (let i = 0; i < 50 && !found; i++) {
      found = JSON.stringify((await search('member')).json).includes(SECRET);
      if (!found) await new Promise((r) => setTimeout(r, 200));
    }
    expect(found).toBe(true);
    const res = await search('outsider');
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.json)).not.toContain(SECRET);
  });
});

describe('no write puts an entry into a workspace its caller is not in', () => {
  test('when a PUT carries only the workspace_id of a workspace the caller is not in, then it is 403 and nothing changes', async () => {
    const entry = (await create('outsider', { title: 'plain' })).json;
    const res = await as('outsider', `${ENTRIES}/${entry.id}`, { method: 'PUT', body: { workspace_id: WS_A } });
    expect(res.status).toBe(403);
    expect(res.json).toEqual(MEMBERS_ONLY);
    const after = (await as('outsider', `${ENTRIES}/${entry.id}`)).json;
    expect(after).toMatchObject({ version: 1, workspace_id: null });
    expect((await as('outsider', `${ENTRIES}/${entry.id}/versions`)).json).toHaveLength(1);
    // Its own workspace is fine.
    const own = await as('outsider', `${ENTRIES}/${entry.id}`, { method: 'PUT', body: { workspace_id: WS_B } });
    expect(own.status).toBe(200);
    expect(own.json).toMatchObject({ version: 2, workspace_id: WS_B });
  });

  test('when a PUT moves a workspace entry into another workspace the caller is not in, then it is 403', async () => {
    const entry = (await create('member', { visibility: 'workspace', workspace_id: WS_A })).json;
    const res = await as('member', `${ENTRIES}/${entry.id}`, { method: 'PUT', body: { workspace_id: WS_B } });
    expect(res.status).toBe(403);
    expect(res.json).toEqual(MEMBERS_ONLY);
    const both = await as('member', `${ENTRIES}/${entry.id}`, {
      method: 'PUT',
      body: { visibility: 'workspace', workspace_id: WS_B, title: 'moved' },
    });
    expect(both.status).toBe(403);
    expect((await as('member', `${ENTRIES}/${entry.id}`)).json).toMatchObject({
      version: 1,
      workspace_id: WS_A,
      title: 't',
    });
    // The other workspace's members never saw it.
    expect((await as('outsider', `${ENTRIES}/${entry.id}`)).status).toBe(404);
  });

  test('when a create names a workspace the caller is not in, whatever the visibility, then it is 403 and nothing is written', async () => {
    const before = (await as('admin', `${ENTRIES}?limit=500`)).json.length;
    for (const visibility of ['workspace', 'internal', 'public']) {
      const res = await create('outsider', { visibility, workspace_id: WS_A, title: `into A ${visibility}` });
      expect(res.status).toBe(403);
      expect(res.json).toEqual(MEMBERS_ONLY);
    }
    expect((await as('admin', `${ENTRIES}?limit=500`)).json.length).toBe(before);
  });

  test('when workspaces are off, then a PUT into a foreign workspace is still 403 (it would take effect once they are on)', async () => {
    const entry = (await create('outsider', { title: 'later' })).json;
    await stack.admin('tenant', 'settings', '--tenant', tenant, '--set', 'workspaces_enabled=false');
    try {
      const res = await as('outsider', `${ENTRIES}/${entry.id}`, { method: 'PUT', body: { workspace_id: WS_A } });
      expect(res.status).toBe(403);
      expect(res.json).toEqual(MEMBERS_ONLY);
    } finally {
      await stack.admin('tenant', 'settings', '--tenant', tenant, '--set', 'workspaces_enabled=true');
    }
  });
});
