/**
 * Optimistic concurrency on entries: conditional writes on the version read. Many concurrent
 * PUTs on one entry: every success is one version, the losers get 409, nothing is lost.
 */
import { startStack, uniqueId, type Stack } from '../support/stack';

const ENTRIES = '/api/knowledge/knowledge-entries';

let stack: Stack;
const tenant = uniqueId('race');
let token: string;
let category: string;

beforeAll(async () => {
  stack = await startStack();
  token = await stack.tenantWithToken(tenant, 'Admin');
  category = (await stack.request(tenant, '/api/knowledge/categories', { method: 'POST', token, body: { name: 'c' } }))
    .json.id;
});
afterAll(async () => {
  await stack?.stop();
});

const create = async () =>
  (
    await stack.request(tenant, ENTRIES, {
      method: 'POST',
      token,
      body: { title: 'start', content: 'c', category_id: category, visibility: 'internal', tags: [] },
    })
  ).json;

describe('concurrent updates', () => {
  test(
    'when many PUTs race on one entry, then the final version is 1 + the ' +
      'successes, the rest are 409, and every success is in the history',
    async () => {
      const e = await create();
      const N = 30;
      const results = await Promise.all(
        Array.from({ length: N }, (_, i) =>
          stack.request(tenant, `${ENTRIES}/${e.id}`, {
            method: 'PUT',
            token,
            body: { title: `title ${i}`, tags: [`writer-${i}`] },
          }),
        ),
      );
      const ok = results.filter((r) => r.status === 200);
      const conflicts = results.filter((r) => r.status === 409);
      expect(ok.length + conflicts.length).toBe(N);
      expect(ok.length).toBeGreaterThanOrEqual(1);
      for (const c of conflicts) expect(typeof c.json.detail).toBe('string');

      const final = (await stack.request(tenant, `${ENTRIES}/${e.id}`, { token })).json;
      expect(final.version).toBe(1 + ok.length);
      // Each success got its own version; no two successes claim the same one.
      const versions = ok.map((r) => r.json.version).sort((a, b) => a - b);
      expect(versions).toEqual(Array.from({ length: ok.length }, (_, i) => i + 2));
      // The final state is exactly what the last successful writer sent: its title and its tag together.
      const last = ok.find((r) => r.json.version === final.version)!;
      expect(final.title).toBe(last.json.title);
      expect(final.tags).toEqual(last.json.tags);
      expect(final.tags).toEqual([`writer-${final.title.split(' ')[1]}`]);
      // The history holds every successful write, in order.
      const history = (await stack.request(tenant, `${ENTRIES}/${e.id}/versions`, { token })).json;
      expect(history.map((v: { version: number }) => v.version)).toEqual(
        Array.from({ length: final.version }, (_, i) => i + 1),
      );
      expect(
        history
          .slice(1)
          .map((v: { entry: { title: string } }) => v.entry.title)
          .sort(),
      ).toEqual(ok.map((r) => r.json.title).sort());
    },
  );

  test('when PUTs with If-Match of the same version race, then exactly one wins and the others get 412 or 409', async () => {
    const e = await create();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        stack.request(tenant, `${ENTRIES}/${e.id}`, {
          method: 'PUT',
          token,
          headers: { 'If-Match': '"1"' },
          body: { content: `c${i}` },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status !== 200).every((r) => r.status === 409 || r.status === 412)).toBe(true);
    expect((await stack.request(tenant, `${ENTRIES}/${e.id}`, { token })).json.version).toBe(2);
  });

  test('when updates on different fields are made one after the other with If-Match, then none is lost', async () => {
    const e = await create();
    let etag = '"1"';
    for (const body of [{ title: 'A' }, { summary: 'B' }, { tags: ['C'] }, { layer: 'D' }]) {
      const res = await stack.request(tenant, `${ENTRIES}/${e.id}`, {
        method: 'PUT',
        token,
        headers: { 'If-Match': etag },
        body,
      });
      expect(res.status).toBe(200);
      etag = res.headers.etag as string;
    }
    const final = (await stack.request(tenant, `${ENTRIES}/${e.id}`, { token })).json;
    expect(final).toMatchObject({ title: 'A', summary: 'B', tags: ['C'], layer: 'D', version: 5 });
  });
});
