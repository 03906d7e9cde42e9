/**
 * The tenant's singleton skill_index entry: rebuilt on every skill create, update and delete
 * (here without transactions: the local MongoDB-compatible server has none), never written by
 * a client, never keeping a renamed or deleted skill.
 */
import { startStack, uniqueId, type Stack } from '../support/stack';

const ENTRIES = '/api/knowledge/knowledge-entries';

let stack: Stack;
const tenant = uniqueId('skills');
let admin: string;
let supervisor: string;
let agent: string;
let category: string;

beforeAll(async () => {
  stack = await startStack();
  admin = await stack.tenantWithToken(tenant, 'Admin');
  supervisor = await stack.token(tenant, 'Supervisor');
  agent = await stack.token(tenant, 'Agent');
  category = (
    await stack.request(tenant, '/api/knowledge/categories', { method: 'POST', token: admin, body: { name: 'Skills' } })
  ).json.id;
});
afterAll(async () => {
  await stack?.stop();
});

const skill = (title: string, trigger: string, token = admin, extra: Record<string, unknown> = {}) =>
  stack.request(tenant, ENTRIES, {
    method: 'POST',
    token,
    body: {
      title,
      content: `How to ${title}`,
      category_id: category,
      visibility: 'internal',
      type: 'skill',
      metadata: { trigger_description: trigger },
      ...extra,
    },
  });
const indexes = async (token = admin) => (await stack.request(tenant, `${ENTRIES}?type=skill_index`, { token })).json;
const theIndex = async () => {
  const all = await indexes();
  expect(all.length).toBeLessThanOrEqual(1);
  return all[0];
};

describe('skill index', () => {
  test('when there are no skills, then there is no index entry', async () => {
    expect(await indexes()).toEqual([]);
  });

  test('when skills are created, then the one index entry lists each with its trigger description', async () => {
    const a = (await skill('Refund', 'customer asks for money back')).json;
    expect(a.type).toBe('skill');
    const b = (await skill('Track parcel', 'where is my parcel', supervisor)).json;
    const index = await theIndex();
    expect(index).toMatchObject({
      type: 'skill_index',
      title: 'Skill index',
      source: 'system',
      visibility: 'internal',
    });
    expect(
      index.metadata.skills.map((s: { id: string; title: string; trigger_description: string }) => [
        s.id,
        s.title,
        s.trigger_description,
      ]),
    ).toEqual([
      [a.id, 'Refund', 'customer asks for money back'],
      [b.id, 'Track parcel', 'where is my parcel'],
    ]);
    expect(index.content).toContain(`- **Refund** (\`${a.id}\`): customer asks for money back`);
    expect(index.content).toContain(`- **Track parcel** (\`${b.id}\`): where is my parcel`);
  });

  test('when a skill is renamed or its trigger changes, then the index never keeps the old text', async () => {
    const s = (await skill('Old name', 'old trigger')).json;
    const before = await theIndex();
    const res = await stack.request(tenant, `${ENTRIES}/${s.id}`, {
      method: 'PUT',
      token: admin,
      body: { title: 'New name', metadata: { trigger_description: 'new trigger' } },
    });
    expect(res.status).toBe(200);
    const index = await theIndex();
    expect(index.id).toBe(before.id);
    expect(index.version).toBe(before.version + 1);
    expect(index.content).not.toContain('Old name');
    expect(index.content).not.toContain('old trigger');
    expect(index.content).toContain(`- **New name** (\`${s.id}\`): new trigger`);
  });

  test('when a skill is deleted, then it leaves the index; when the last one goes, the index goes', async () => {
    const t = uniqueId('skills-del');
    const token = await stack.tenantWithToken(t, 'Admin');
    const cat = (await stack.request(t, '/api/knowledge/categories', { method: 'POST', token, body: { name: 'c' } }))
      .json.id;
    const mk = (title: string) =>
      stack.request(t, ENTRIES, {
        method: 'POST',
        token,
        body: {
          title,
          content: 'c',
          category_id: cat,
          visibility: 'internal',
          type: 'skill',
          metadata: { trigger_description: title },
        },
      });
    const one = (await mk('one')).json;
    const two = (await mk('two')).json;
    expect((await stack.request(t, `${ENTRIES}/${one.id}`, { method: 'DELETE', token })).status).toBe(204);
    let index = (await stack.request(t, `${ENTRIES}?type=skill_index`, { token })).json;
    expect(index).toHaveLength(1);
    expect(index[0].metadata.skills.map((s: { id: string }) => s.id)).toEqual([two.id]);
    expect(index[0].content).not.toContain('**one**');
    expect((await stack.request(t, `${ENTRIES}/${two.id}`, { method: 'DELETE', token })).status).toBe(204);
    index = (await stack.request(t, `${ENTRIES}?type=skill_index`, { token })).json;
    expect(index).toEqual([]);
    // The category is free again once the index is gone.
    expect((await stack.request(t, `/api/knowledge/categories/${cat}`, { method: 'DELETE', token })).status).toBe(204);
  });

  test('when a non-skill entry changes, then the index is not rewritten', async () => {
    const before = await theIndex();
    await stack.request(tenant, ENTRIES, {
      method: 'POST',
      token: admin,
      body: { title: 'k', content: 'c', category_id: category, visibility: 'internal' },
    });
    expect((await theIndex()).version).toBe(before.version);
  });

  test('when a client creates, updates or deletes a skill_index entry, then 403 and the index is unchanged', async () => {
    const before = await theIndex();
    const created = await stack.request(tenant, ENTRIES, {
      method: 'POST',
      token: admin,
      body: { title: 'x', content: 'c', category_id: category, visibility: 'internal', type: 'skill_index' },
    });
    expect(created.status).toBe(403);
    expect(created.json.detail).toMatch(/skill_index/);
    expect(
      (
        await stack.request(tenant, `${ENTRIES}/${before.id}`, {
          method: 'PUT',
          token: admin,
          body: { content: 'hacked' },
        })
      ).status,
    ).toBe(403);
    expect((await stack.request(tenant, `${ENTRIES}/${before.id}`, { method: 'DELETE', token: admin })).status).toBe(
      403,
    );
    expect(await theIndex()).toEqual(before);
  });

  test('when an Agent writes a skill, then 403 and the index is unchanged', async () => {
    const before = await theIndex();
    const res = await skill('Agent skill', 'x', agent);
    expect(res.status).toBe(403);
    expect(await theIndex()).toEqual(before);
  });

  test('when a restricted skill exists, then an Agent reads the index without it, and a restricted-only index stays hidden', async () => {
    const before = await theIndex();
    await skill('Secret', 'restricted trigger', admin, { visibility: 'restricted' });
    const index = await theIndex();
    expect(index.content).toContain('Secret');
    // As visible as its most visible skill: the Agent gets it, with only the skills it may read.
    expect(index.visibility).toBe(before.visibility);
    const [seen] = await indexes(agent);
    expect(seen.content).not.toContain('Secret');
    expect(seen.metadata.skills.map((s: { title: string }) => s.title)).not.toContain('Secret');
    expect((await stack.request(tenant, `${ENTRIES}/${index.id}`, { token: agent })).json.content).not.toContain(
      'Secret',
    );
    // A tenant whose only skill is restricted: its index is restricted, an Agent gets none.
    const t = uniqueId('skills-restricted');
    const token = await stack.tenantWithToken(t, 'Admin');
    const cat = (await stack.request(t, '/api/knowledge/categories', { method: 'POST', token, body: { name: 'c' } }))
      .json.id;
    const created = await stack.request(t, ENTRIES, {
      method: 'POST',
      token,
      body: {
        title: 'Only',
        content: 'c',
        category_id: cat,
        visibility: 'restricted',
        type: 'skill',
        metadata: { trigger_description: 'x' },
      },
    });
    expect(created.status).toBe(201);
    const agentThere = await stack.token(t, 'Agent');
    expect((await stack.request(t, `${ENTRIES}?type=skill_index`, { token: agentThere })).json).toEqual([]);
  });

  test('when skills are written concurrently, then the index ends up listing every one of them', async () => {
    const t = uniqueId('skills-race');
    const token = await stack.tenantWithToken(t, 'Admin');
    const cat = (await stack.request(t, '/api/knowledge/categories', { method: 'POST', token, body: { name: 'c' } }))
      .json.id;
    const created = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        stack.request(t, ENTRIES, {
          method: 'POST',
          token,
          body: {
            title: `s${i}`,
            content: 'c',
            category_id: cat,
            visibility: 'internal',
            type: 'skill',
            metadata: { trigger_description: `t${i}` },
          },
        }),
      ),
    );
    expect(created.map((r) => (r.status === 201 ? 201 : `${r.status} ${r.text}`))).toEqual(created.map(() => 201));
    const index = (await stack.request(t, `${ENTRIES}?type=skill_index`, { token })).json;
    expect(index).toHaveLength(1);
    expect(index[0].metadata.skills.map((s: { id: string }) => s.id).sort()).toEqual(
      created.map((r) => r.json.id).sort(),
    );
  });
});
