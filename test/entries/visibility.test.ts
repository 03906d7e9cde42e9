/**
 * Roles × visibilities × routes: who may read and write what (docs/api.md, "Roles and
 * visibility"), generated as a matrix rather than a handful of cases.
 */
import { startStack, uniqueId, type Stack } from '../support/stack';

const ENTRIES = '/api/knowledge/knowledge-entries';
const ROLES = ['Admin', 'Supervisor', 'Agent', 'Viewer'] as const;
const LEVELS = ['public', 'community', 'internal', 'restricted'] as const;
const CEILING: Record<string, number> = { Admin: 3, Supervisor: 3, Agent: 2, Viewer: 1 };
const WRITABLE: Record<string, string[]> = {
  Admin: ['knowledge', 'skill', 'process', 'glossary', 'memory', 'bootstrap'],
  Supervisor: ['knowledge', 'skill', 'process', 'glossary', 'memory', 'bootstrap'],
  Agent: ['knowledge', 'process', 'glossary', 'memory'],
  Viewer: [],
};
const TYPES = ['knowledge', 'skill', 'process', 'glossary', 'memory', 'bootstrap', 'skill_index'];
const METADATA: Record<string, unknown> = {
  skill: { trigger_description: 'when asked' },
  process: { steps: [{ title: 's' }] },
};
const WS_A = '4a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const WS_B = '5b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e';

let stack: Stack;
const tenant = uniqueId('vis');
const tokens: Record<string, string> = {};
let category: string;
const byLevel: Record<string, string> = {};
let workspaceEntry: string;

beforeAll(async () => {
  // Settings flip between two requests here; the 5 s cache of them is tested in test/edge/token-cache.test.ts.
  stack = await startStack({ env: { TENANT_SETTINGS_CACHE_TTL_MS: '0' } });
  tokens.Admin = await stack.tenantWithToken(tenant, 'Admin', [
    '--user',
    '6c3d4e5f-6a7b-4c8d-8e9f-0a1b2c3d4e5f',
    '--workspace',
    WS_A,
  ]);
  // Viewers get write scope too, so the role (not the scope) is what the matrix tests.
  for (const role of ['Supervisor', 'Agent', 'Viewer']) {
    tokens[role] = await stack.token(tenant, role, [
      '--scopes',
      'knowledge:read knowledge:write',
      '--workspace',
      role === 'Agent' ? WS_A : WS_B,
    ]);
  }
  category = (
    await stack.request(tenant, '/api/knowledge/categories', {
      method: 'POST',
      token: tokens.Admin,
      body: { name: 'c' },
    })
  ).json.id;
  for (const level of LEVELS) {
    byLevel[level] = (await create('Admin', { visibility: level, title: `entry ${level}` })).json.id;
  }
  workspaceEntry = (await create('Admin', { visibility: 'workspace', workspace_id: WS_A, title: 'ws' })).json.id;
});
afterAll(async () => {
  await stack?.stop();
});

function create(role: string, patch: Record<string, unknown>) {
  return stack.request(tenant, ENTRIES, {
    method: 'POST',
    token: tokens[role],
    body: { title: 't', content: 'c', category_id: category, visibility: 'internal', ...patch },
  });
}
const visibleIds = async (role: string) =>
  new Set(
    (await stack.request(tenant, `${ENTRIES}?limit=500`, { token: tokens[role] })).json.map(
      (e: { id: string }) => e.id,
    ),
  );

const readCases = ROLES.flatMap((role) =>
  LEVELS.map((level) => [role, level, LEVELS.indexOf(level) <= CEILING[role]!] as const),
);

describe('reading: every role × every visibility on the get and list routes', () => {
  test.each(readCases)('when a %s reads a %s entry, then it is visible: %s', async (role, level, visible) => {
    const id = byLevel[level]!;
    const got = await stack.request(tenant, `${ENTRIES}/${id}`, { token: tokens[role] });
    expect(got.status).toBe(visible ? 200 : 404);
    if (!visible) expect(got.json).toEqual({ detail: 'Entry not found' });
    expect((await visibleIds(role)).has(id)).toBe(visible);
    const versions = await stack.request(tenant, `${ENTRIES}/${id}/versions`, { token: tokens[role] });
    expect(versions.status).toBe(visible ? 200 : 404);
    const translations = await stack.request(tenant, `${ENTRIES}/${id}/translations`, { token: tokens[role] });
    expect(translations.status).toBe(visible ? 200 : 404);
    const update = await stack.request(tenant, `${ENTRIES}/${id}`, {
      method: 'PUT',
      token: tokens[role],
      body: { tags: [role] },
    });
    // Viewers may not write the knowledge type at all, but an invisible entry is a 404 first.
    expect(update.status).toBe(!visible ? 404 : WRITABLE[role]!.includes('knowledge') ? 200 : 403);
  });

  test.each(readCases)(
    'when a %s filters the list by visibility=%s, then the ceiling still applies (visible: %s)',
    async (role, level, visible) => {
      const res = await stack.request(tenant, `${ENTRIES}?visibility=${level}`, { token: tokens[role] });
      expect(res.status).toBe(200);
      expect(res.json.some((e: { id: string }) => e.id === byLevel[level])).toBe(visible);
      expect(res.json.every((e: { visibility: string }) => e.visibility === level)).toBe(true);
    },
  );
});

const writeCases = ROLES.flatMap((role) => LEVELS.map((level) => [role, level] as const));

describe('writing: every role × every visibility on create and update', () => {
  test.each(writeCases)(
    'when a %s writes a %s entry, then it is allowed only up to the role ceiling',
    async (role, level) => {
      const allowed = LEVELS.indexOf(level) <= CEILING[role]! && WRITABLE[role]!.includes('knowledge');
      const res = await create(role, { visibility: level });
      expect(res.status).toBe(allowed ? 201 : 403);
      if (role !== 'Viewer') {
        const mine = (await create(role, { visibility: 'public' })).json.id;
        const raised = await stack.request(tenant, `${ENTRIES}/${mine}`, {
          method: 'PUT',
          token: tokens[role],
          body: { visibility: level },
        });
        expect(raised.status).toBe(LEVELS.indexOf(level) <= CEILING[role]! ? 200 : 403);
      }
    },
  );
});

const typeCases = ROLES.flatMap((role) =>
  TYPES.map((type) => [role, type, type !== 'skill_index' && WRITABLE[role]!.includes(type)] as const),
);

describe('writing: every role × every type', () => {
  test.each(typeCases)('when a %s creates a %s entry, then it is allowed: %s', async (role, type, allowed) => {
    const res = await create(role, {
      type,
      visibility: 'public',
      ...(METADATA[type] ? { metadata: METADATA[type] } : {}),
    });
    expect(res.status).toBe(allowed ? 201 : 403);
    if (!allowed) expect(typeof res.json.detail).toBe('string');
  });
});

describe('scopes', () => {
  test('when a token lacks knowledge:write, then every write route is 403; without knowledge:read every read route is 403', async () => {
    const readOnly = await stack.token(tenant, 'Admin', ['--scopes', 'knowledge:read']);
    const writeOnly = await stack.token(tenant, 'Admin', ['--scopes', 'knowledge:write']);
    const id = byLevel.public!;
    const writes = [
      stack.request(tenant, ENTRIES, {
        method: 'POST',
        token: readOnly,
        body: { title: 't', content: 'c', category_id: category, visibility: 'public' },
      }),
      stack.request(tenant, `${ENTRIES}/personal`, {
        method: 'POST',
        token: readOnly,
        body: { title: 't', content: 'c', category_id: category },
      }),
      stack.request(tenant, `${ENTRIES}/${id}`, { method: 'PUT', token: readOnly, body: { title: 'x' } }),
      stack.request(tenant, `${ENTRIES}/${id}`, { method: 'DELETE', token: readOnly }),
      stack.request(tenant, `/api/knowledge/categories/${category}`, {
        method: 'PUT',
        token: readOnly,
        body: { name: 'x' },
      }),
    ];
    for (const res of await Promise.all(writes)) expect(res.status).toBe(403);
    const reads = [
      stack.request(tenant, ENTRIES, { token: writeOnly }),
      stack.request(tenant, `${ENTRIES}/${id}`, { token: writeOnly }),
      stack.request(tenant, `${ENTRIES}/${id}/versions`, { token: writeOnly }),
      stack.request(tenant, '/api/knowledge/search/entries', {
        method: 'POST',
        token: writeOnly,
        body: { query: 'x' },
      }),
    ];
    for (const res of await Promise.all(reads)) expect(res.status).toBe(403);
  });

  test('when X-Scopes narrows an Admin token to read, then creating an entry is 403', async () => {
    const res = await stack.request(tenant, ENTRIES, {
      method: 'POST',
      token: tokens.Admin,
      headers: { 'X-Scopes': 'knowledge:read' },
      body: { title: 't', content: 'c', category_id: category, visibility: 'public' },
    });
    expect(res.status).toBe(403);
  });
});

describe('personal entries: only ever visible to their owner, whatever the role', () => {
  test.each(ROLES.filter((r) => r !== 'Viewer'))(
    'when a %s creates a personal note, then no other role sees it on any read route',
    async (owner) => {
      const note = await stack.request(tenant, `${ENTRIES}/personal`, {
        method: 'POST',
        token: tokens[owner],
        body: { title: 'p', content: 'c', category_id: category },
      });
      expect(note.status).toBe(201);
      for (const role of ROLES) {
        const own = role === owner;
        expect((await stack.request(tenant, `${ENTRIES}/${note.json.id}`, { token: tokens[role] })).status).toBe(
          own ? 200 : 404,
        );
        expect((await visibleIds(role)).has(note.json.id)).toBe(own);
        if (!own) {
          expect(
            (await stack.request(tenant, `${ENTRIES}/${note.json.id}`, { method: 'DELETE', token: tokens[role] }))
              .status,
          ).toBe(404);
          expect(
            (
              await stack.request(tenant, `${ENTRIES}/${note.json.id}`, {
                method: 'PUT',
                token: tokens[role],
                body: { title: 'x' },
              })
            ).status,
          ).toBe(404);
        }
      }
    },
  );
});

describe('workspace entries', () => {
  test('when workspaces are off, then a workspace entry reads as internal; when on, only members see it', async () => {
    expect((await visibleIds('Agent')).has(workspaceEntry)).toBe(true);
    expect((await visibleIds('Supervisor')).has(workspaceEntry)).toBe(true);
    expect((await visibleIds('Viewer')).has(workspaceEntry)).toBe(false);

    await stack.admin('tenant', 'settings', '--tenant', tenant, '--set', 'workspaces_enabled=true');
    try {
      // The Agent and the Admin are in WS_A, the Supervisor and the Viewer in WS_B.
      expect((await stack.request(tenant, `${ENTRIES}/${workspaceEntry}`, { token: tokens.Agent })).status).toBe(200);
      expect((await stack.request(tenant, `${ENTRIES}/${workspaceEntry}`, { token: tokens.Admin })).status).toBe(200);
      expect((await stack.request(tenant, `${ENTRIES}/${workspaceEntry}`, { token: tokens.Supervisor })).status).toBe(
        404,
      );
      expect((await visibleIds('Supervisor')).has(workspaceEntry)).toBe(false);
      expect((await visibleIds('Agent')).has(workspaceEntry)).toBe(true);
      // Writing into a workspace one is not a member of is refused.
      expect((await create('Supervisor', { visibility: 'workspace', workspace_id: WS_A })).status).toBe(403);
      expect((await create('Agent', { visibility: 'workspace', workspace_id: WS_A })).status).toBe(201);
    } finally {
      await stack.admin('tenant', 'settings', '--tenant', tenant, '--set', 'workspaces_enabled=false');
    }
  });
});

describe('admin CLI workspaces', () => {
  test('when --workspace is not a uuid, then token create refuses it', async () => {
    await expect(
      stack.admin('token', 'create', '--tenant', tenant, '--role', 'Agent', '--workspace', 'team-a'),
    ).rejects.toThrow(/--workspace must be a uuid/);
  });
});

describe('tenant settings', () => {
  test('when a tenant lowers the Agent ceiling to public, then Agents no longer see internal entries', async () => {
    const t = uniqueId('ceil');
    const admin = await stack.tenantWithToken(t, 'Admin');
    const agent = await stack.token(t, 'Agent');
    const cat = (
      await stack.request(t, '/api/knowledge/categories', { method: 'POST', token: admin, body: { name: 'c' } })
    ).json.id;
    const e = (
      await stack.request(t, ENTRIES, {
        method: 'POST',
        token: admin,
        body: { title: 't', content: 'c', category_id: cat, visibility: 'internal' },
      })
    ).json;
    expect((await stack.request(t, `${ENTRIES}/${e.id}`, { token: agent })).status).toBe(200);
    await stack.admin(
      'tenant',
      'settings',
      '--tenant',
      t,
      '--set',
      'role_visibility_ceilings.Agent=public',
      '--set',
      'role_writable_types.Agent=glossary',
    );
    expect((await stack.request(t, `${ENTRIES}/${e.id}`, { token: agent })).status).toBe(404);
    const knowledge = await stack.request(t, ENTRIES, {
      method: 'POST',
      token: agent,
      body: { title: 't', content: 'c', category_id: cat, visibility: 'public' },
    });
    expect(knowledge.status).toBe(403);
    const glossary = await stack.request(t, ENTRIES, {
      method: 'POST',
      token: agent,
      body: { title: 't', content: 'c', category_id: cat, visibility: 'public', type: 'glossary' },
    });
    expect(glossary.status).toBe(201);
  });
});

describe('history: every stored state is checked like a current entry', () => {
  const versionsOf = async (role: string, id: string) => {
    const res = await stack.request(tenant, `${ENTRIES}/${id}/versions`, { token: tokens[role] });
    return {
      status: res.status,
      states:
        res.status === 200
          ? res.json.map((h: { version: number; entry: { visibility: string; content: string } }) => [
              h.version,
              h.entry.visibility,
              h.entry.content,
            ])
          : [],
    };
  };

  test(
    'when a restricted entry is lowered to internal and then ' +
      'public, then each role sees only the states within its ceiling',
    async () => {
      const id = (await create('Admin', { visibility: 'restricted', content: 'restricted secret' })).json.id;
      const put = (body: Record<string, unknown>) =>
        stack.request(tenant, `${ENTRIES}/${id}`, { method: 'PUT', token: tokens.Admin, body });
      expect((await put({ visibility: 'internal', content: 'internal text' })).status).toBe(200);

      expect(await versionsOf('Agent', id)).toEqual({ status: 200, states: [[2, 'internal', 'internal text']] });
      expect((await versionsOf('Viewer', id)).status).toBe(404);

      expect((await put({ visibility: 'public', content: 'public text' })).status).toBe(200);
      expect(await versionsOf('Viewer', id)).toEqual({ status: 200, states: [[3, 'public', 'public text']] });
      expect(await versionsOf('Agent', id)).toEqual({
        status: 200,
        states: [
          [2, 'internal', 'internal text'],
          [3, 'public', 'public text'],
        ],
      });
      for (const role of ['Admin', 'Supervisor']) {
        expect((await versionsOf(role, id)).states.map((s: unknown[]) => s[0])).toEqual([1, 2, 3]);
      }
    },
  );

  test('when a workspace entry is made public while workspaces are enabled, then non-members see only the public state', async () => {
    await stack.admin('tenant', 'settings', '--tenant', tenant, '--set', 'workspaces_enabled=true');
    try {
      // The Admin and the Agent are in WS_A, the Supervisor and the Viewer in WS_B.
      const id = (await create('Admin', { visibility: 'workspace', workspace_id: WS_A, content: 'team secret' })).json
        .id;
      const res = await stack.request(tenant, `${ENTRIES}/${id}`, {
        method: 'PUT',
        token: tokens.Admin,
        body: { visibility: 'public', content: 'public text' },
      });
      expect(res.status).toBe(200);
      expect(await versionsOf('Supervisor', id)).toEqual({ status: 200, states: [[2, 'public', 'public text']] });
      expect(await versionsOf('Viewer', id)).toEqual({ status: 200, states: [[2, 'public', 'public text']] });
      expect((await versionsOf('Agent', id)).states.map((s: unknown[]) => s[0])).toEqual([1, 2]);
    } finally {
      await stack.admin('tenant', 'settings', '--tenant', tenant, '--set', 'workspaces_enabled=false');
    }
  });
});
