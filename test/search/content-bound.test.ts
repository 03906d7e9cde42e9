/**
 * An entry at the content bound (100,000 characters) is indexed within 60 s of its write and its
 * last passage is searchable (real Elasticsearch, MongoDB server and embedding model).
 *
 * A `solo` file (jest.config.js): it times a bound, so it runs with the machine to itself. Beside the
 * e2e workers on a two-core machine, embedding the entry's ~2,000 sentences took longer than the bound.
 */
import { startStack, uniqueId, type Stack } from '../support/stack';

let stack: Stack;
const tenant = uniqueId('bound');
let admin: string;
let category: string;

beforeAll(async () => {
  stack = await startStack({ env: { INDEXER_INTERVAL_MS: '200' } });
  admin = await stack.tenantWithToken(tenant, 'Admin');
  category = (
    await stack.request(tenant, '/api/knowledge/categories', { method: 'POST', token: admin, body: { name: 'c' } })
  ).json.id;
});
afterAll(async () => {
  await stack?.stop();
});

interface Hit {
  entry: { id: string };
  passages: { text: string }[];
}

/** Numbered sections of paragraphs about store operations, every sentence its own (none embed alike). */
function filler(sections: number): string {
  const out: string[] = [];
  for (let s = 1; s <= sections; s++) {
    out.push(`## Archive section ${s}`);
    for (let p = 0; p < 3; p++) {
      const at = ` (${s}.${p})`;
      out.push(
        `Staff at the archive desk keep the ledger for week ${s}.${p} up to date. ` +
          `Each shift hands over open tasks in writing, checks the printer paper and restocks the brochure stand${at}. ` +
          `Team leads review the rota on Mondays and note training sessions in the shared calendar${at}. ` +
          `Cleaning of the counter follows the checklist pinned behind the door${at}.`,
      );
    }
  }
  return out.join('\n\n');
}

test('when an entry is at the content bound, then it is indexed within 60 s and its last passage is searchable', async () => {
  const tail = 'The emergency contact for frozen pipes is the caretaker on extension 4711.';
  const content = `${filler(200).slice(0, 100_000 - tail.length - 2)}\n\n${tail}`;
  expect(content.length).toBe(100_000);
  const t0 = Date.now();
  const res = await stack.request(tenant, '/api/knowledge/knowledge-entries', {
    method: 'POST',
    token: admin,
    body: { category_id: category, visibility: 'internal', language: 'en', title: 'Archive manual', content },
  });
  expect(res.status).toBe(201);
  const id = res.json.id as string;
  await stack.entryIndexed(tenant, id, admin, 60_000 - (Date.now() - t0));
  let top: Hit | undefined;
  while (!top && Date.now() < t0 + 60_000) {
    const found = await stack.request(tenant, '/api/knowledge/search/entries', {
      method: 'POST',
      token: admin,
      body: { query: 'who do I call when the pipes freeze?', limit: 10 },
    });
    expect(found.status).toBe(200);
    top = (found.json as Hit[]).find((h) => h.entry.id === id);
    if (!top) await new Promise((r) => setTimeout(r, 500));
  }
  process.stdout.write(`an entry of 100,000 characters was searchable ${Date.now() - t0} ms after its write\n`);
  expect(top).toBeDefined();
  expect(top!.passages.some((p) => p.text.includes('extension 4711'))).toBe(true);
}, 90_000);
