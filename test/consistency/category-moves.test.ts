/**
 * Concurrent category moves through the gateway: moves that would together close a cycle
 * (A under B and B under A; a ring of three) race in many rounds, and the tree as stored in
 * MongoDB afterwards must have no cycle. Moves take turns per tenant (a tree lock document),
 * so at most one of each racing set can pass its cycle check; the others are 422 (or 409 when
 * their turn did not come in time), never a 5xx.
 */
import mongoose from 'mongoose';
import { startStack, uniqueId, type Stack } from '../support/stack';

const CATEGORIES = '/api/knowledge/categories';
const ROUNDS = 15;

let stack: Stack;
let db: mongoose.Connection;
const tenant = uniqueId('moves');
let token: string;

beforeAll(async () => {
  stack = await startStack();
  db = await mongoose.createConnection(stack.mongoUri).asPromise();
  token = await stack.tenantWithToken(tenant, 'Admin');
}, 60_000);
afterAll(async () => {
  await db?.close();
  await stack?.stop();
});

const createCategory = async (name: string) => {
  const res = await stack.request(tenant, CATEGORIES, { method: 'POST', token, body: { name } });
  expect(res.status).toBe(201);
  return res.json.id as string;
};
const move = (id: string, parentId: string) =>
  stack.request(tenant, `${CATEGORIES}/${id}`, { method: 'PUT', token, body: { parent_id: parentId } });

/** Categories of the tenant, as stored, that sit on a cycle of parent links. */
async function onCycles(): Promise<string[]> {
  const stored = await db.collection('categories').find({ tenant_id: tenant }).toArray();
  const parentOf = new Map(stored.map((c) => [String(c._id), (c.parent_id as string | null) ?? null]));
  const cyclic: string[] = [];
  for (const start of parentOf.keys()) {
    const seen = new Set<string>();
    for (let at: string | null = start; at !== null; at = parentOf.get(at) ?? null) {
      if (seen.has(at)) {
        cyclic.push(start);
        break;
      }
      seen.add(at);
    }
  }
  return cyclic;
}

describe('concurrent category moves', () => {
  test('when A is moved under B and B under A at once in many rounds, then at most one passes and no cycle is stored', async () => {
    let bothPassed = 0;
    let onePassed = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const a = await createCategory(`a${round}`);
      const b = await createCategory(`b${round}`);
      const [ab, ba] = await Promise.all([move(a, b), move(b, a)]);
      for (const res of [ab, ba]) {
        expect([200, 409, 422]).toContain(res.status);
        if (res.status === 422) {
          expect(res.json.detail[0]).toMatchObject({ loc: ['body', 'parent_id'], type: 'value_error' });
        }
      }
      if (ab.status === 200 && ba.status === 200) bothPassed++;
      if ((ab.status === 200) !== (ba.status === 200)) onePassed++;
    }
    expect(bothPassed).toBe(0);
    expect(onePassed).toBeGreaterThan(0);
    expect(await onCycles()).toEqual([]);
  });

  test('when a ring of three (A under B, B under C, C under A) and two more moves race, then no cycle is stored', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const [a, b, c, d] = await Promise.all(['a', 'b', 'c', 'd'].map((n) => createCategory(`${n}${round}`)));
      const results = await Promise.all([move(a!, b!), move(b!, c!), move(c!, a!), move(d!, a!), move(a!, d!)]);
      for (const res of results) expect([200, 409, 422]).toContain(res.status);
      // What the client was told holds: every 200 names the parent it asked for.
      const asked = [b, c, a, a, d];
      results.forEach((res, i) => {
        if (res.status === 200) expect(res.json.parent_id).toBe(asked[i]);
      });
    }
    expect(await onCycles()).toEqual([]);
  });

  test('when a category is moved below its own descendant without a race, then it is 422 as before', async () => {
    const top = await createCategory('top');
    const child = (
      await stack.request(tenant, CATEGORIES, { method: 'POST', token, body: { name: 'child', parent_id: top } })
    ).json.id;
    const res = await move(top, child);
    expect(res.status).toBe(422);
    expect(res.json.detail[0].msg).toBe('A category cannot be moved below itself or one of its descendants');
  });
});
