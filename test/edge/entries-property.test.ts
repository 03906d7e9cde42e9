/**
 * Property test: random bodies (valid, nearly valid and junk) at the create and update routes.
 * Whatever is sent, the gateway never answers 5xx, and a refused request writes nothing.
 */
import fc from 'fast-check';
import { startStack, uniqueId, type Stack } from '../support/stack';

const ENTRIES = '/api/knowledge/knowledge-entries';

let stack: Stack;
const tenant = uniqueId('prop');
let admin: string;
let agent: string;
let category: string;

beforeAll(async () => {
  stack = await startStack();
  admin = await stack.tenantWithToken(tenant, 'Admin');
  agent = await stack.token(tenant, 'Agent');
  category = (
    await stack.request(tenant, '/api/knowledge/categories', { method: 'POST', token: admin, body: { name: 'c' } })
  ).json.id;
});
afterAll(async () => {
  await stack?.stop();
});

const junk = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 3 }),
);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: arb }, { weight: 1, arbitrary: junk });
const text = (max: number) =>
  fc.oneof(fc.string({ maxLength: max }), fc.constant(''), fc.constant('x'.repeat(max + 1)));
const metadata = fc.oneof(
  fc.constant({ steps: [{ title: 'a' }] }),
  fc.constant({ trigger_description: 't' }),
  fc.record(
    {
      expires_at: fc.oneof(
        fc.constant('2000-01-01T00:00:00Z'),
        fc.constant('2999-01-01T00:00:00Z'),
        fc.string({ maxLength: 5 }),
      ),
    },
    { requiredKeys: [] },
  ),
  fc.record(
    { term: fc.string({ maxLength: 5 }), synonyms: fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }) },
    { requiredKeys: [] },
  ),
  fc.jsonValue({ maxDepth: 2 }),
);
const fields = {
  title: maybe(text(500)),
  content: maybe(text(20)),
  category_id: maybe(fc.oneof(fc.constant('CATEGORY'), fc.uuid())),
  visibility: maybe(
    fc.constantFrom('public', 'internal', 'personal', 'restricted', 'community', 'workspace', 'secret'),
  ),
  summary: maybe(fc.option(fc.string({ maxLength: 10 }))),
  layer: maybe(fc.option(text(50))),
  tags: maybe(fc.array(fc.string({ maxLength: 5 }), { maxLength: 4 })),
  type: maybe(
    fc.constantFrom('knowledge', 'skill', 'process', 'glossary', 'memory', 'bootstrap', 'skill_index', 'other'),
  ),
  language: maybe(fc.string({ minLength: 0, maxLength: 7 })),
  metadata: maybe(metadata),
  source: maybe(fc.constantFrom('manual', 'import', 'conversational', 'learning_loop', 'system', 'fax')),
  source_reference: maybe(fc.option(fc.string({ maxLength: 10 }))),
  similarity_text: maybe(fc.option(fc.string({ maxLength: 10 }))),
  search_keywords: maybe(fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 })),
  project_ids: maybe(fc.option(fc.array(fc.uuid(), { maxLength: 2 }))),
  workspace_id: maybe(fc.option(fc.uuid())),
  surprise: junk,
};
const body = fc.record(fields, { requiredKeys: [] }).map((b) => {
  const out: Record<string, unknown> = { ...b };
  if (out.category_id === 'CATEGORY') out.category_id = category;
  return out;
});

async function allEntries(): Promise<Map<string, unknown>> {
  const res = await stack.request(tenant, `${ENTRIES}?limit=500&include_expired=true`, { token: admin });
  expect(res.status).toBe(200);
  return new Map(res.json.map((e: { id: string }) => [e.id, e]));
}

describe('random bodies', () => {
  test('when random bodies are created, then never a 5xx, and a refused create writes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const before = await allEntries();
        const res = await stack.request(tenant, ENTRIES, { method: 'POST', token: agent, body: b });
        expect(res.status).toBeLessThan(500);
        const after = await allEntries();
        if (res.status === 201) {
          expect(after.size).toBe(before.size + 1);
          expect({ ...(after.get(res.json.id) as object), embedding_model: null }).toEqual({
            ...res.json,
            embedding_model: null,
          });
        } else {
          expect([400, 403, 404, 409, 422]).toContain(res.status);
          expect(after).toEqual(before);
        }
      }),
      { numRuns: 80 },
    );
  });

  test('when random bodies update an entry, then never a 5xx, a refused update changes nothing, and a success is one version', async () => {
    const target = (
      await stack.request(tenant, ENTRIES, {
        method: 'POST',
        token: agent,
        body: { title: 't', content: 'c', category_id: category, visibility: 'internal' },
      })
    ).json;
    const { type: _t, language: _l, source: _s, ...updatable } = fields;
    const updateBody = fc
      .record(
        {
          ...updatable,
          type: fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: junk }),
        },
        { requiredKeys: [] },
      )
      .map((b) => {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(b)) if (v !== undefined) out[k] = v === 'CATEGORY' ? category : v;
        return out;
      });
    await fc.assert(
      fc.asyncProperty(updateBody, async (b) => {
        const before = (await stack.request(tenant, `${ENTRIES}/${target.id}`, { token: admin })).json;
        const res = await stack.request(tenant, `${ENTRIES}/${target.id}`, { method: 'PUT', token: agent, body: b });
        expect(res.status).toBeLessThan(500);
        const after = (await stack.request(tenant, `${ENTRIES}/${target.id}`, { token: admin })).json;
        if (res.status === 200) {
          expect(after.version).toBe(before.version + 1);
          expect({ ...after, embedding_model: null }).toEqual({ ...res.json, embedding_model: null });
        } else {
          expect([400, 403, 404, 409, 422]).toContain(res.status);
          expect(after).toEqual(before);
        }
      }),
      { numRuns: 80 },
    );
  });
});
