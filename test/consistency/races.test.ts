/**
 * Races on the "409 while in use" and uniqueness rules, through the gateway: each test runs
 * many rounds of concurrent pairs (a delete against a write that would reference what is being
 * deleted; two writes that must not both succeed) and then reads MongoDB directly to check that
 * the database never ends in a state the rules forbid. Every answer must be a documented status
 * (never a 5xx), and what a client was told must hold: a delete answered 204 means nothing
 * references the deleted category or site; a create answered 201 means its parent exists.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mongoose from 'mongoose';
import { startStack, uniqueId, type HttpResponse, type Stack } from '../support/stack';

const API = '/api/knowledge';
const ROUNDS = 20;
/** Every status a write or delete in these races may answer (200: PUT, upserts that updated, bulk). */
const DOCUMENTED = [200, 201, 204, 404, 409, 422];

let stack: Stack;
let db: mongoose.Connection;

beforeAll(async () => {
  stack = await startStack();
  db = await mongoose.createConnection(stack.mongoUri).asPromise();
}, 60_000);
afterAll(async () => {
  await db?.close();
  await stack?.stop();
});

type Doc = Record<string, unknown> & { _id: string };
const docs = (collection: string, tenant: string, filter: Record<string, unknown> = {}) =>
  db
    .collection(collection)
    .find({ tenant_id: tenant, ...filter })
    .toArray() as unknown as Promise<Doc[]>;
const ids = async (collection: string, tenant: string) => new Set((await docs(collection, tenant)).map((d) => d._id));

/** Entries (the system's skill index aside) whose category does not exist. */
async function entriesWithoutCategory(tenant: string): Promise<string[]> {
  const categories = await ids('categories', tenant);
  return (await docs('knowledge_entries', tenant, { type: { $ne: 'skill_index' } }))
    .filter((e) => !categories.has(e.category_id as string))
    .map((e) => `entry ${e._id} in deleted category ${String(e.category_id)}`);
}

/** Categories whose parent does not exist. */
async function categoriesWithoutParent(tenant: string): Promise<string[]> {
  const all = await docs('categories', tenant);
  const known = new Set(all.map((c) => c._id));
  return all
    .filter((c) => c.parent_id != null && !known.has(c.parent_id as string))
    .map((c) => `category ${c._id} under deleted category ${String(c.parent_id)}`);
}

/** Products whose site does not exist. */
async function productsWithoutSite(tenant: string): Promise<string[]> {
  const sites = await ids('sites', tenant);
  return (await docs('products', tenant))
    .filter((p) => !sites.has(p.site_id as string))
    .map((p) => `product ${p._id} on deleted site ${String(p.site_id)}`);
}

/** Exactly one default site that exists while the tenant has sites; no default pointing at a deleted site. */
async function defaultSiteProblems(tenant: string): Promise<string[]> {
  const sites = await ids('sites', tenant);
  const pointers = (await docs('default_sites', tenant)).map((p) => p.site_id as string);
  const defaults = pointers.filter((id) => sites.has(id));
  if (defaults.length === (sites.size > 0 ? 1 : 0) && defaults.length === pointers.length) return [];
  return [
    `${sites.size} sites, default pointing at ${pointers.map((id) => (sites.has(id) ? id : `deleted site ${id}`)).join(', ') || 'nothing'}`,
  ];
}

/** Keys shared by more than one document. */
function duplicates(all: Doc[], key: (d: Doc) => string): string[] {
  const counts = new Map<string, number>();
  for (const d of all) counts.set(key(d), (counts.get(key(d)) ?? 0) + 1);
  return [...counts].filter(([, c]) => c > 1).map(([k, c]) => `${c} documents share ${k}`);
}

/** Answers that are not a documented status (a 5xx, say), with their bodies. */
const undocumented = (responses: HttpResponse[]) =>
  responses.filter((r) => !DOCUMENTED.includes(r.status)).map((r) => `answered ${r.status} ${r.text}`);

/** What one round answered (a label such as "delete 204, create 404") and what it found wrong. */
interface Round {
  label: string;
  wrong: string[];
}

/**
 * Runs every round even after a bad one, so a failure tells how many rounds went wrong and
 * how (each problem reported in the round it first appears); prints the tally of answers,
 * which shows which side won how often.
 */
async function race(name: string, round: (i: number) => Promise<Round>): Promise<void> {
  const answers = new Map<string, number>();
  const failed: string[] = [];
  const reported = new Set<string>();
  for (let i = 0; i < ROUNDS; i++) {
    const r = await round(i);
    answers.set(r.label, (answers.get(r.label) ?? 0) + 1);
    const fresh = r.wrong.filter((w) => !reported.has(w));
    for (const w of fresh) reported.add(w);
    if (fresh.length)
      failed.push(
        `round ${i} (${r.label}): ${fresh.slice(0, 3).join('; ')}${fresh.length > 3 ? ` and ${fresh.length - 3} more` : ''}`,
      );
  }
  console.log(
    `${name}: ${ROUNDS} rounds, ${failed.length} wrong; answers: ${[...answers].map(([k, c]) => `${k} ×${c}`).join(', ')}`,
  );
  expect(failed).toEqual([]);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * Starts a request of a round a few milliseconds late, by round and by its place k in it (the
 * delete is k = -1: 0-7 ms; the writers 0-4 ms), so across the rounds the writers start from
 * 7 ms before to 4 ms after the delete and meet it at each of its steps.
 */
async function later<T>(round: number, k: number, start: () => Promise<T>): Promise<T> {
  await sleep(k < 0 ? round % 8 : (round * 3 + k) % 5);
  return start();
}

const request = (tenant: string, token: string, method: string, path: string, body?: unknown) =>
  stack.request(tenant, `${API}${path}`, { method, token, ...(body === undefined ? {} : { body }) });
const idOf = async (res: Promise<HttpResponse>) => {
  const r = await res;
  if (r.status !== 201) throw new Error(`set-up failed: ${r.status} ${r.text}`);
  return r.json.id as string;
};

describe('categories under concurrent deletes', () => {
  test(
    'when a category is deleted while entries are created in it, then no entry ' +
      'is left without its category and a 204 delete never meets a 201 create',
    async () => {
      const tenant = uniqueId('race-cat-entry');
      const token = await stack.tenantWithToken(tenant, 'Admin');
      await race('category delete vs entry create', async (round) => {
        const category = await idOf(request(tenant, token, 'POST', '/categories', { name: `c${round}` }));
        const entry = (i: number) =>
          later(round, i, () =>
            request(tenant, token, 'POST', '/knowledge-entries', {
              title: `e${round}-${i}`,
              content: 'c',
              category_id: category,
              visibility: 'internal',
            }),
          );
        const [del, ...creates] = await Promise.all([
          later(round, -1, () => request(tenant, token, 'DELETE', `/categories/${category}`)),
          entry(0),
          entry(1),
          entry(2),
        ]);
        const wrong = [...undocumented([del, ...creates]), ...(await entriesWithoutCategory(tenant))];
        if (del.status === 204 && creates.some((c) => c.status === 201))
          wrong.push('the delete answered 204 and a create 201');
        return { label: `delete ${del.status}, creates ${creates.map((c) => c.status).join('/')}`, wrong };
      });
    },
  );

  test(
    'when a category is deleted while entries are moved into it, then no ' +
      'entry ends in a deleted category and a 204 delete never meets a 200 move',
    async () => {
      const tenant = uniqueId('race-cat-move');
      const token = await stack.tenantWithToken(tenant, 'Admin');
      const home = await idOf(request(tenant, token, 'POST', '/categories', { name: 'home' }));
      await race('category delete vs entry move', async (round) => {
        const target = await idOf(request(tenant, token, 'POST', '/categories', { name: `t${round}` }));
        const entries = await Promise.all(
          [0, 1].map((i) =>
            idOf(
              request(tenant, token, 'POST', '/knowledge-entries', {
                title: `m${round}-${i}`,
                content: 'c',
                category_id: home,
                visibility: 'internal',
              }),
            ),
          ),
        );
        const [del, ...moves] = await Promise.all([
          later(round, -1, () => request(tenant, token, 'DELETE', `/categories/${target}`)),
          ...entries.map((id, i) =>
            later(round, i, () => request(tenant, token, 'PUT', `/knowledge-entries/${id}`, { category_id: target })),
          ),
        ]);
        const wrong = [...undocumented([del, ...moves]), ...(await entriesWithoutCategory(tenant))];
        if (del.status === 204 && moves.some((m) => m.status === 200))
          wrong.push('the delete answered 204 and a move 200');
        return { label: `delete ${del.status}, moves ${moves.map((m) => m.status).join('/')}`, wrong };
      });
    },
  );

  test(
    'when a category is deleted while a child category is created or ' +
      'moved under it, then no category is left without its parent',
    async () => {
      const tenant = uniqueId('race-cat-child');
      const token = await stack.tenantWithToken(tenant, 'Admin');
      await race('category delete vs child category create and move', async (round) => {
        const parent = await idOf(request(tenant, token, 'POST', '/categories', { name: `p${round}` }));
        const loose = await idOf(request(tenant, token, 'POST', '/categories', { name: `l${round}` }));
        const [del, child, moved] = await Promise.all([
          later(round, -1, () => request(tenant, token, 'DELETE', `/categories/${parent}`)),
          later(round, 0, () =>
            request(tenant, token, 'POST', '/categories', { name: `child${round}`, parent_id: parent }),
          ),
          later(round, 1, () => request(tenant, token, 'PUT', `/categories/${loose}`, { parent_id: parent })),
        ]);
        const wrong = [...undocumented([del, child, moved]), ...(await categoriesWithoutParent(tenant))];
        if (del.status === 204 && (child.status === 201 || moved.status === 200))
          wrong.push('the delete answered 204 and a child create or move succeeded');
        return { label: `delete ${del.status}, child create ${child.status}, move ${moved.status}`, wrong };
      });
    },
  );
});

describe('sites under concurrent deletes', () => {
  /** A tenant with a default site, so the sites a round deletes are never the default. */
  async function tenantWithDefaultSite(prefix: string): Promise<{ tenant: string; token: string }> {
    const tenant = uniqueId(prefix);
    const token = await stack.tenantWithToken(tenant, 'Admin');
    await idOf(request(tenant, token, 'POST', '/sites', { slug: 'main', name: 'Main' }));
    return { tenant, token };
  }

  test(
    'when a site is deleted while products are created in it, then no product ' +
      'is left on a deleted site and a 204 delete never meets a 201 create',
    async () => {
      const { tenant, token } = await tenantWithDefaultSite('race-site-product');
      await race('site delete vs product create', async (round) => {
        const site = await idOf(request(tenant, token, 'POST', '/sites', { slug: `s${round}`, name: 'S' }));
        const product = (i: number) =>
          later(round, i, () =>
            request(tenant, token, 'POST', `/products?site_id=${site}`, {
              title: `p${round}-${i}`,
              language: 'de',
              external_id: `p${round}-${i}`,
            }),
          );
        const [del, ...creates] = await Promise.all([
          later(round, -1, () => request(tenant, token, 'DELETE', `/sites/${site}`)),
          product(0),
          product(1),
        ]);
        const wrong = [...undocumented([del, ...creates]), ...(await productsWithoutSite(tenant))];
        if (del.status === 204 && creates.some((c) => c.status === 201))
          wrong.push('the delete answered 204 and a create 201');
        return { label: `delete ${del.status}, creates ${creates.map((c) => c.status).join('/')}`, wrong };
      });
    },
  );

  test(
    'when a site is deleted while a bulk and an import write into it, then no ' +
      'product is left on a deleted site and a 204 delete never meets a created product',
    async () => {
      const { tenant, token } = await tenantWithDefaultSite('race-site-bulk');
      const dir = mkdtempSync(join(tmpdir(), 'races-'));
      await race('site delete vs bulk and import', async (round) => {
        const slug = `b${round}`;
        const site = await idOf(request(tenant, token, 'POST', '/sites', { slug, name: 'B' }));
        const file = join(dir, `${slug}.jsonl`);
        writeFileSync(
          file,
          [0, 1, 2]
            .map((i) => JSON.stringify({ title: `i${round}-${i}`, language: 'de', external_id: `i${round}-${i}` }))
            .join('\n'),
        );
        const products = [0, 1, 2, 3, 4].map((i) => ({
          title: `b${round}-${i}`,
          language: 'de',
          external_id: `b${round}-${i}`,
        }));
        const [del, bulk, imported] = await Promise.all([
          later(round, -1, () => request(tenant, token, 'DELETE', `/sites/${site}`)),
          later(round, 0, () => request(tenant, token, 'POST', `/products/bulk?site_id=${site}`, { products })),
          later(round, 1, () =>
            stack.catalogAdmin('products', 'import', '--tenant', tenant, '--site', slug, file),
          ).then(
            (r) => (r.code === 0 ? 'imported' : `exit ${r.code}`),
            () => 'refused',
          ),
        ]);
        const created =
          bulk.status === 200
            ? (bulk.json.results as { status: string }[]).filter((r) => r.status === 'created').length
            : 0;
        const wrong = [...undocumented([del, bulk]), ...(await productsWithoutSite(tenant))];
        if (del.status === 204 && created > 0) wrong.push(`the delete answered 204 and the bulk created ${created}`);
        if (del.status === 204 && imported === 'imported')
          wrong.push('the delete answered 204 and the import succeeded');
        return {
          label: `delete ${del.status}, bulk ${bulk.status}${bulk.status === 200 ? ` (${created} created)` : ''}, import ${imported}`,
          wrong,
        };
      });
    },
  );

  test(
    'when the default site is switched while sites are deleted, then ' +
      'the tenant always ends with exactly one default site that exists',
    async () => {
      const { tenant, token } = await tenantWithDefaultSite('race-default');
      await race('default switch vs deletes', async (round) => {
        const sites = (await request(tenant, token, 'GET', '/sites')).json as { id: string; is_default: boolean }[];
        if (sites.length === 0)
          await idOf(request(tenant, token, 'POST', '/sites', { slug: `again${round}`, name: 'Again' }));
        const current = (
          (await request(tenant, token, 'GET', '/sites')).json as { id: string; is_default: boolean }[]
        ).find((s) => s.is_default);
        if (!current)
          return { label: 'no default site at the start', wrong: ['no default site at the start of a round'] };
        const next = await idOf(request(tenant, token, 'POST', '/sites', { slug: `d${round}`, name: 'D' }));
        // The switch to `next` races both the delete of `next` and the delete of the current default.
        const [switched, delNext, delCurrent] = await Promise.all([
          later(round, 0, () => request(tenant, token, 'PUT', `/sites/${next}`, { is_default: true })),
          later(round, -1, () => request(tenant, token, 'DELETE', `/sites/${next}`)),
          later(round, 1, () => request(tenant, token, 'DELETE', `/sites/${current.id}`)),
        ]);
        const wrong = [...undocumented([switched, delNext, delCurrent]), ...(await defaultSiteProblems(tenant))];
        return {
          label: `switch ${switched.status}, delete new ${delNext.status}, delete old default ${delCurrent.status}`,
          wrong,
        };
      });
    },
  );

  test(
    'when the only site is deleted while other sites are created, ' +
      'then the tenant ends with exactly one default site if it has any',
    async () => {
      await race('last-site delete vs site creates', async (round) => {
        const tenant = uniqueId('race-last-site');
        const token = await stack.tenantWithToken(tenant, 'Admin');
        const only = await idOf(request(tenant, token, 'POST', '/sites', { slug: 'only', name: 'Only' }));
        // Two creates, started 0-10 ms after the delete (by round): the window that matters (after
        // the delete's check, before it clears the default) is a millisecond or two wide.
        const create = async (k: number) => {
          await sleep((round % 10) + k);
          return request(tenant, token, 'POST', '/sites', { slug: `new-${k}`, name: 'New' });
        };
        const [del, ...created] = await Promise.all([
          request(tenant, token, 'DELETE', `/sites/${only}`),
          create(0),
          create(1),
        ]);
        const wrong = [...undocumented([del, ...created]), ...(await defaultSiteProblems(tenant))];
        const ok = created.filter((c) => c.status === 201).length;
        return { label: `delete ${del.status}, ${ok} of ${created.length} creates 201`, wrong };
      });
    },
  );
});

describe('uniqueness under concurrent creates', () => {
  test('when three translations in the same language are created at once, then exactly one is created and the others are 409', async () => {
    const tenant = uniqueId('race-translation');
    const token = await stack.tenantWithToken(tenant, 'Admin');
    const category = await idOf(request(tenant, token, 'POST', '/categories', { name: 'c' }));
    await race('translations in one language', async (round) => {
      const source = await idOf(
        request(tenant, token, 'POST', '/knowledge-entries', {
          title: `s${round}`,
          content: 'c',
          category_id: category,
          visibility: 'internal',
        }),
      );
      const translate = (i: number) =>
        request(tenant, token, 'POST', '/knowledge-entries', {
          title: `t${round}-${i}`,
          content: 'c',
          category_id: category,
          visibility: 'internal',
          language: 'en',
          translation_of: source,
        });
      const answers = await Promise.all([translate(0), translate(1), translate(2)]);
      const statuses = answers.map((a) => a.status).sort();
      const wrong = [
        ...undocumented(answers),
        ...duplicates(
          await docs('knowledge_entries', tenant),
          (e) => `group ${String(e.translation_group_id)} language ${String(e.language)}`,
        ),
      ];
      if (statuses.join() !== '201,409,409') wrong.push(`answered ${statuses.join('/')}, not one 201 and two 409`);
      return { label: statuses.join('/'), wrong };
    });
  });

  test('when three sites with one slug are created at once, then exactly one is created and the others are 409', async () => {
    const tenant = uniqueId('race-slug');
    const token = await stack.tenantWithToken(tenant, 'Admin');
    await race('sites with one slug', async (round) => {
      const create = () => request(tenant, token, 'POST', '/sites', { slug: `same-${round}`, name: 'Same' });
      const answers = await Promise.all([create(), create(), create()]);
      const statuses = answers.map((a) => a.status).sort();
      const wrong = [
        ...undocumented(answers),
        ...duplicates(await docs('sites', tenant), (s) => `slug ${String(s.slug)}`),
        ...(await defaultSiteProblems(tenant)),
      ];
      if (statuses.join() !== '201,409,409') wrong.push(`answered ${statuses.join('/')}, not one 201 and two 409`);
      return { label: statuses.join('/'), wrong };
    });
  });
});
