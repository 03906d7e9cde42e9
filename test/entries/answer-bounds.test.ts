/**
 * Answers are bounded in bytes, not only in count (issue 23, item 4). An entry may hold ~1 MiB
 * (metadata within the body limit), and a page of entries, an entry's versions or translations and
 * entry search hits each cross gRPC as one message (capped at 16 MiB). The audit's reproduction:
 * 18 entries of ~0.97 MiB made `GET /knowledge-entries?limit=500` a 500, and 18 versions of one
 * entry made its `/versions` a 500. Now each answer stops before ANSWER_BYTE_BUDGET (8 MiB), and
 * a page's Link rel="next" continues right after its last item, so paging gets every item once.
 */
import { ANSWER_BYTE_BUDGET } from '@kb/rules';
import { startStack, uniqueId, type HttpResponse, type Stack } from '../support/stack';

const ENTRIES = '/api/knowledge/knowledge-entries';
/** Past 16 MiB together, the gRPC cap: before the fix, listing these was a 500. */
const GRPC_CAP = 16 * 1024 * 1024;
const bytesOf = (pages: HttpResponse[]) => pages.reduce((n, p) => n + Buffer.byteLength(p.text), 0);
const COUNT = 18;
const LANGUAGES = [
  'de',
  'en',
  'fr',
  'es',
  'it',
  'nl',
  'pl',
  'pt',
  'sv',
  'da',
  'fi',
  'cs',
  'hu',
  'ro',
  'el',
  'bg',
  'sk',
  'hr',
];

let stack: Stack;
const tenant = uniqueId('bounds');
let admin: string;
let category: string;
/** The entries, created in one translation group (so the group is as large as the list). */
const ids: string[] = [];

/** ~0.96 MiB of metadata (200 keys of 5,000 characters): within every stated limit (keys, body size). */
function bigMetadata(seed: string): Record<string, string> {
  return Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, `${seed}${i}`.padEnd(5000, 'x')]));
}

const request = (path: string, init: Parameters<Stack['request']>[2] = {}) =>
  stack.request(tenant, path, { token: admin, ...init });

/** The path of a Link rel="next" header, or null on the last page. */
function nextOf(res: HttpResponse): string | null {
  const link = res.headers.link;
  if (link === undefined) return null;
  const m = /^<([^>]+)>; rel="next"$/.exec(String(link));
  if (!m?.[1]) throw new Error(`not a next link: ${String(link)}`);
  return m[1];
}

/** Every page from `path` on, following Link rel="next"; each page must be a 200 within the budget. */
async function allPages(path: string): Promise<HttpResponse[]> {
  const pages: HttpResponse[] = [];
  for (let next: string | null = path; next !== null; next = nextOf(pages[pages.length - 1] as HttpResponse)) {
    const res = await request(next);
    expect(res.status).toBe(200);
    expect(Buffer.byteLength(res.text)).toBeLessThanOrEqual(ANSWER_BYTE_BUDGET);
    pages.push(res);
    if (pages.length > 40) throw new Error('paging did not end');
  }
  return pages;
}

beforeAll(async () => {
  stack = await startStack();
  admin = await stack.tenantWithToken(tenant, 'Admin');
  category = (await request('/api/knowledge/categories', { method: 'POST', body: { name: 'Big' } })).json.id;
  const create = async (language: string, of?: string) => {
    const res = await request(ENTRIES, {
      method: 'POST',
      body: {
        title: `Parcel rules ${language}`,
        content: `How parcels ship (${language}).`,
        category_id: category,
        visibility: 'internal',
        language,
        metadata: bigMetadata(language),
        ...(of ? { translation_of: of } : {}),
      },
    });
    expect(res.status).toBe(201);
    return res.json.id as string;
  };
  expect(LANGUAGES).toHaveLength(COUNT);
  const source = await create(LANGUAGES[0] as string);
  ids.push(source);
  // One at a time: the writes are large, the machine small.
  for (const language of LANGUAGES.slice(1, COUNT)) ids.push(await create(language, source));
}, 300_000);
afterAll(async () => {
  await stack?.stop();
});

describe('a listing of entries larger than the answer budget', () => {
  it('answers 200 with fewer entries and a next link, and paging gets every entry exactly once', async () => {
    const pages = await allPages(`${ENTRIES}?limit=500`);
    const first = pages[0] as HttpResponse;
    expect(first.json.length).toBeGreaterThan(0);
    expect(first.json.length).toBeLessThan(COUNT);
    expect(nextOf(first)).toContain('limit=500');
    expect(pages.length).toBeGreaterThan(1);
    const seen = pages.flatMap((p) => (p.json as { id: string }[]).map((e) => e.id));
    expect(seen).toHaveLength(COUNT);
    expect(new Set(seen)).toEqual(new Set(ids));
    // Together they would not fit one gRPC message: what made this a 500 before.
    expect(bytesOf(pages)).toBeGreaterThan(GRPC_CAP);
    // Pages never pass the budget, yet they are not cut far below it either (~0.97 MiB an entry).
    expect(Buffer.byteLength(first.text)).toBeGreaterThan(ANSWER_BYTE_BUDGET - 2 * 1024 * 1024);
  }, 120_000);

  it('keeps the page size when it is the smaller bound', async () => {
    const pages = await allPages(`${ENTRIES}?limit=5`);
    expect(pages.map((p) => p.json.length)).toEqual([5, 5, 5, 3]);
    expect(new Set(pages.flatMap((p) => (p.json as { id: string }[]).map((e) => e.id)))).toEqual(new Set(ids));
  }, 120_000);
});

describe('a translation group larger than the answer budget', () => {
  it('answers 200 a page at a time, every member once, the source first', async () => {
    const pages = await allPages(`${ENTRIES}/${ids[3]}/translations`);
    expect(pages.length).toBeGreaterThan(1);
    expect((pages[0] as HttpResponse).json.length).toBeLessThan(COUNT);
    const members = pages.flatMap((p) => p.json as { entry: { id: string }; is_source: boolean }[]);
    expect(members.map((m) => m.entry.id).sort()).toEqual([...ids].sort());
    expect(members[0]).toMatchObject({ entry: { id: ids[0] }, is_source: true });
    expect(members.filter((m) => m.is_source)).toHaveLength(1);
  }, 120_000);
});

describe('a version history larger than the answer budget', () => {
  it('answers 200 a page at a time, every version once and in order', async () => {
    const id = ids[1] as string;
    for (let i = 1; i < COUNT; i += 1) {
      const res = await request(`${ENTRIES}/${id}`, { method: 'PUT', body: { metadata: bigMetadata(`v${i}`) } });
      expect(res.status).toBe(200);
    }
    const pages = await allPages(`${ENTRIES}/${id}/versions`);
    expect(pages.length).toBeGreaterThan(1);
    expect((pages[0] as HttpResponse).json.length).toBeLessThan(COUNT);
    const versions = pages.flatMap((p) => (p.json as { version: number }[]).map((v) => v.version));
    expect(versions).toEqual(Array.from({ length: COUNT }, (_, i) => i + 1));
    expect(bytesOf(pages)).toBeGreaterThan(GRPC_CAP);

    const small = await allPages(`${ENTRIES}/${id}/versions?limit=6`);
    expect(small.map((p) => p.json.length)).toEqual([6, 6, 6]);
    const bad = await request(`${ENTRIES}/${id}/versions?cursor=nonsense`);
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0].loc).toEqual(['query', 'cursor']);
  }, 300_000);
});

describe('entry search over large entries', () => {
  it('answers 200 with fewer hits than asked and matched, within the budget', async () => {
    for (const id of ids) await stack.entryIndexed(tenant, id, admin, 120_000);
    const search = (body: Record<string, unknown>) =>
      request('/api/knowledge/search/entries', { method: 'POST', body: { query: 'parcels ship', limit: 50, ...body } });
    const res = await search({});
    expect(res.status).toBe(200);
    expect(Buffer.byteLength(res.text)).toBeLessThanOrEqual(ANSWER_BYTE_BUDGET);
    expect(res.json.length).toBeGreaterThan(0);
    expect(res.json.length).toBeLessThan(COUNT);
    const hits = (res.json as { entry: { id: string } }[]).map((h) => h.entry.id);
    expect(new Set(hits).size).toBe(hits.length);
    expect(hits.every((id) => ids.includes(id))).toBe(true);
  }, 300_000);
});
