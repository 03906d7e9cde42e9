/**
 * Translations (extension): translation_of joins a group, one entry per language per group,
 * and the group lists each member with whether it is outdated against its source.
 */
import { startStack, uniqueId, type Stack } from '../support/stack';

const ENTRIES = '/api/knowledge/knowledge-entries';

let stack: Stack;
const tenant = uniqueId('i18n');
let token: string;
let agent: string;
let category: string;

beforeAll(async () => {
  stack = await startStack();
  token = await stack.tenantWithToken(tenant, 'Admin');
  agent = await stack.token(tenant, 'Agent');
  category = (await stack.request(tenant, '/api/knowledge/categories', { method: 'POST', token, body: { name: 'c' } }))
    .json.id;
});
afterAll(async () => {
  await stack?.stop();
});

const create = (body: Record<string, unknown>, t = token) =>
  stack.request(tenant, ENTRIES, {
    method: 'POST',
    token: t,
    body: { title: 'Versand', content: 'Mit DHL.', category_id: category, visibility: 'internal', ...body },
  });
const group = async (id: string, t = token) =>
  (await stack.request(tenant, `${ENTRIES}/${id}/translations`, { token: t })).json;

describe('translations', () => {
  test("when an entry is translated, then the translation joins the source's group and neither is outdated", async () => {
    const de = (await create({})).json;
    const en = await create({ title: 'Shipping', content: 'With DHL.', language: 'en', translation_of: de.id });
    expect(en.status).toBe(201);
    expect(en.json.translation_group_id).toBe(de.translation_group_id);
    const members = await group(de.id);
    expect(
      members.map((m: { entry: { id: string }; is_source: boolean; outdated: boolean }) => [
        m.entry.id,
        m.is_source,
        m.outdated,
      ]),
    ).toEqual([
      [de.id, true, false],
      [en.json.id, false, false],
    ]);
    expect(await group(en.json.id)).toEqual(members);
  });

  test(
    'when the source text changes after the translation was edited, ' +
      'then the translation is outdated until it is edited again',
    async () => {
      const de = (await create({})).json;
      const fr = (await create({ title: 'Expédition', content: 'Avec DHL.', language: 'fr', translation_of: de.id }))
        .json;
      // A tag change on the source is not a text change.
      await stack.request(tenant, `${ENTRIES}/${de.id}`, { method: 'PUT', token, body: { tags: ['x'] } });
      expect((await group(de.id)).find((m: { entry: { id: string } }) => m.entry.id === fr.id).outdated).toBe(false);
      await stack.request(tenant, `${ENTRIES}/${de.id}`, {
        method: 'PUT',
        token,
        body: { content: 'Mit DHL oder UPS.' },
      });
      expect((await group(de.id)).find((m: { entry: { id: string } }) => m.entry.id === fr.id).outdated).toBe(true);
      await stack.request(tenant, `${ENTRIES}/${fr.id}`, {
        method: 'PUT',
        token,
        body: { content: 'Avec DHL ou UPS.' },
      });
      expect((await group(de.id)).find((m: { entry: { id: string } }) => m.entry.id === fr.id).outdated).toBe(false);
    },
  );

  test('when a second translation in the same language is created, then 409 and nothing is written', async () => {
    const de = (await create({})).json;
    expect((await create({ language: 'en', translation_of: de.id })).status).toBe(201);
    const dup = await create({ language: 'en', translation_of: de.id });
    expect(dup.status).toBe(409);
    expect(typeof dup.json.detail).toBe('string');
    const sameAsSource = await create({ language: 'de', translation_of: de.id });
    expect(sameAsSource.status).toBe(409);
    expect(await group(de.id)).toHaveLength(2);
  });

  test('when racing translations into one language, then exactly one is created', async () => {
    const de = (await create({})).json;
    const results = await Promise.all(
      Array.from({ length: 6 }, () => create({ language: 'it', translation_of: de.id })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(5);
  });

  test("when translation_of names an unknown, another tenant's or an invisible entry, then 404", async () => {
    const restricted = (await create({ visibility: 'restricted' })).json;
    expect((await create({ language: 'en', translation_of: '2b1e9d4c-8a6f-4e0b-9f51-3c7d2a1b0e99' })).status).toBe(404);
    expect((await create({ language: 'en', translation_of: restricted.id }, agent)).status).toBe(404);
    expect((await create({ language: 'en', translation_of: 'nope' })).status).toBe(422);
  });

  test('when a member is not visible to the caller, then it is left out of the group', async () => {
    const de = (await create({})).json;
    const secret = (await create({ language: 'en', translation_of: de.id, visibility: 'restricted' })).json;
    const seen = (await group(de.id, agent)).map((m: { entry: { id: string } }) => m.entry.id);
    expect(seen).toEqual([de.id]);
    expect(seen).not.toContain(secret.id);
  });
});
