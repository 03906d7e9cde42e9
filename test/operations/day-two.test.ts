/**
 * Day two with the admin CLI, run as a process as an operator runs it (tools/admin/dist/main.js):
 * a tenant exported, purged and imported again answers exactly as before (entries with their
 * versions and timestamps, products, entry search and similar-product search); a purge without
 * --yes changes nothing; a second import refuses; a bad file is refused before anything is
 * written; a reindex that crashed after a page is resumed and finishes.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import mongoose from 'mongoose';
import pino from 'pino';
import { checkArchive, importTenant, LeaseLostError } from '@kb/admin';
import { knowledgeAdmin } from '@kb/knowledge';
import { createElasticsearchClient } from '@kb/search';
import { startStack, uniqueId, type Stack } from '../support/stack';
import { testSigner } from '../support/service-auth';

const cli = path.resolve(__dirname, '../../tools/admin/dist/main.js');
const USER = '7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
const tenant = uniqueId('daytwo');
const dir = mkdtempSync(path.join(tmpdir(), 'kb-day-two-'));
const exported = path.join(dir, 'tenant.jsonl');

let stack: Stack;
let db: mongoose.Connection;
let token: string;
let before: Answers;

// Asynchronous, as in admin-cli.test.ts: the stack's services run in this process.
function admin(...args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [cli, ...args],
      {
        env: { ...process.env, MONGODB_URI: stack.mongoUri, SIMILARITY_GRPC_ADDR: stack.addresses.similarity },
        encoding: 'utf8',
        timeout: 180_000,
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

const call = (route: string, body?: unknown) =>
  stack.request(tenant, `/api/knowledge${route}`, body === undefined ? { token } : { method: 'POST', token, body });

/** A write's answer, its body shown when the status is not the one expected. */
async function written(res: Promise<{ status: number; json: any }>, status = 201) {
  const answer = await res;
  expect({ status: answer.status, body: answer.json }).toEqual({ status, body: expect.anything() });
  if (answer.status !== status) throw new Error(JSON.stringify(answer.json));
  return answer.json;
}

/** What the tenant answers: what must be the same after export, purge and import. */
interface Answers {
  settings: unknown;
  categories: unknown;
  entries: { id: string }[];
  versions: Record<string, unknown>;
  sites: unknown;
  products: Record<string, unknown>;
  entrySearch: unknown;
  similar: unknown;
}

async function answers(productIds: string[]): Promise<Answers> {
  const entries = (await call('/knowledge-entries?limit=500')).json as { id: string }[];
  const versions: Record<string, unknown> = {};
  for (const e of entries) versions[e.id] = (await call(`/knowledge-entries/${e.id}/versions`)).json;
  const products: Record<string, unknown> = {};
  for (const id of productIds) products[id] = (await call(`/products/${id}`)).json;
  const search = await call('/search/entries', { query: 'how long does shipping to Switzerland take', limit: 5 });
  const similar = await call('/search/similar', { anchor_product_ids: [productIds[0]], limit: 5 });
  return {
    settings: JSON.parse((await admin('tenant', 'settings', '--tenant', tenant)).stdout),
    categories: (await call('/categories')).json,
    entries,
    versions,
    sites: (await call('/sites')).json,
    products,
    // Ids and versions in order: BM25 statistics of a shared index move with other tenants' writes and deletes.
    entrySearch: (search.json as { entry: { id: string; version: number } }[]).map((h) => [
      h.entry.id,
      h.entry.version,
    ]),
    // Until the anchor is indexed again, a 404.
    similar:
      similar.status === 200
        ? (similar.json as { products: { id: string; score: number }[] }).products.map((p) => [
            p.id,
            p.score.toFixed(4),
          ])
        : similar.status,
  };
}

/** The tenant's documents in each of its collections, straight from MongoDB. */
async function storedCounts(): Promise<Record<string, number>> {
  const names = [
    'tenants',
    'api_tokens',
    'categories',
    'knowledge_entries',
    'knowledge_entry_versions',
    'sites',
    'default_sites',
    'products',
  ];
  const counts: Record<string, number> = {};
  for (const name of names)
    counts[name] = await db
      .collection(name)
      .countDocuments(name === 'tenants' ? { _id: tenant as never } : { tenant_id: tenant });
  return counts;
}

async function indexedCount(): Promise<number> {
  const es = createElasticsearchClient(process.env.ELASTICSEARCH_URL as string);
  try {
    await es.indices.refresh({ index: `${stack.indexPrefix}-*` });
    const { count } = await es.count({
      index: [`${stack.indexPrefix}-entries-*`, `${stack.indexPrefix}-products-*`],
      query: { term: { tenant_id: tenant } },
    });
    return count;
  } finally {
    await es.close();
  }
}

let productIds: string[] = [];

beforeAll(async () => {
  stack = await startStack();
  db = await mongoose.createConnection(stack.mongoUri).asPromise();
  token = await stack.tenantWithToken(tenant, 'Admin', ['--user', USER]);
  expect((await admin('tenant', 'settings', '--tenant', tenant, '--set', 'hybrid_weights.description=0.7')).code).toBe(
    0,
  );
  const help = (await written(call('/categories', { name: 'Help' }))).id as string;
  const shipping = (await written(call('/categories', { name: 'Shipping', parent_id: help }))).id as string;
  const entry = (title: string, content: string, extra: Record<string, unknown> = {}) =>
    written(
      call('/knowledge-entries', {
        title,
        content,
        category_id: shipping,
        visibility: 'internal',
        language: 'en',
        ...extra,
      }),
    );
  const swiss = await entry('Shipping to Switzerland', 'Parcels to Switzerland take three to five working days.');
  // Two more versions of the same entry: its history must come back whole.
  for (const days of ['four to six', 'five to seven']) {
    const update = { content: `Parcels to Switzerland take ${days} working days, customs included.` };
    const put = stack.request(tenant, `/api/knowledge/knowledge-entries/${swiss.id}`, {
      method: 'PUT',
      token,
      body: update,
    });
    await written(put, 200);
  }
  await entry('Returns', 'Unused gear can be returned within 30 days.');
  await entry('Answer shipping questions', 'Look up the carrier first.', {
    type: 'skill',
    metadata: { trigger_description: 'a customer asks where a parcel is' },
  });
  await written(
    call('/knowledge-entries/personal', {
      category_id: help,
      title: 'Call back',
      content: 'About the tent pole.',
      language: 'en',
    }),
  );
  await written(call('/sites', { slug: 'shop', name: 'Shop' }));
  const bulk = await stack.request(tenant, '/api/knowledge/products/bulk?site_id=shop', {
    method: 'POST',
    token,
    body: {
      products: [
        {
          external_id: 'tent-2',
          title: 'Aurora tent for two',
          description: 'Light tent for two',
          price_current: 249.9,
        },
        {
          external_id: 'tent-3',
          title: 'Aurora tent for three',
          description: 'Roomy tent for three',
          price_current: 329,
        },
        { external_id: 'stove', title: 'Camping stove', description: 'Gas stove for one pot', price_current: 59.95 },
        { external_id: 'mat', title: 'Sleeping mat', description: 'Insulated mat for tents', price_current: 79 },
      ].map((p) => ({ language: 'en', ...p })),
    },
  });
  productIds = (bulk.json.results as { id: string }[]).map((r) => r.id);
  for (const e of (await call('/knowledge-entries?limit=500')).json as { id: string }[])
    await stack.entryIndexed(tenant, e.id, token);
  before = await answers(productIds);
  expect(before.entries.length).toBe(5); // three entries, the skill index and the personal note
  expect(before.entrySearch).not.toEqual([]);
}, 180_000);

afterAll(async () => {
  await db?.close();
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('day two: export, purge, import', () => {
  test('when a tenant is exported, then one JSON-lines file holds a header and its documents, and no token or token hash', async () => {
    const out = await admin('tenant', 'export', '--tenant', tenant, '--out', exported);
    expect(out.stderr).not.toMatch(/error/i);
    expect(out.code).toBe(0);
    const lines = readFileSync(exported, 'utf8').trimEnd().split('\n');
    const header = JSON.parse(lines[0] as string);
    expect(header).toMatchObject({ format: 'kb-tenant-export', version: 1, tenant });
    expect(header.counts).toMatchObject({ tenants: 1, categories: 2, knowledge_entries: 5, sites: 1, products: 4 });
    expect(header.counts.knowledge_entry_versions).toBeGreaterThanOrEqual(7);
    expect(lines.length).toBe(1 + Object.values(header.counts as Record<string, number>).reduce((a, b) => a + b, 0));
    const text = readFileSync(exported, 'utf8');
    expect(text).not.toContain('api_tokens');
    expect(text).not.toContain(token);
    expect(text).not.toContain(createHash('sha256').update(token).digest('hex'));
    expect(text).toContain('"$numberDecimal":"249.9"'); // prices exactly as stored
  });

  test('when purge runs without --yes, then it shows what it would remove and changes nothing', async () => {
    const counts = await storedCounts();
    const indexed = await indexedCount();
    const out = await admin('tenant', 'purge', '--tenant', tenant);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`MongoDB knowledge_entries: 5`);
    expect(out.stdout).toContain('Nothing was removed');
    expect(await storedCounts()).toEqual(counts);
    expect(await indexedCount()).toBe(indexed);
    expect(indexed).toBeGreaterThan(0);
  });

  test('when the tenant is purged with --yes, then nothing of it is left in MongoDB or Elasticsearch and its token fails', async () => {
    const out = await admin('tenant', 'purge', '--tenant', tenant, '--yes');
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^Purged tenant/);
    // The gateway may keep a checked token for its revocation bound (5 s).
    await new Promise((r) => setTimeout(r, 5_500));
    expect(Object.values(await storedCounts()).every((n) => n === 0)).toBe(true);
    expect(await indexedCount()).toBe(0);
    expect((await call('/categories')).status).toBe(401);
  }, 150_000);

  test("when an import's lease lapses while it writes, then it stops and undoes what it wrote", async () => {
    const { header } = await checkArchive(exported);
    let batches = 0;
    const lost = () => ++batches > 1; // the lease lapses after the first batch was written
    const quiet = { start: () => undefined, update: () => undefined };
    await expect(importTenant(db.db as never, exported, header, quiet, lost)).rejects.toBeInstanceOf(LeaseLostError);
    expect(batches).toBeGreaterThan(1);
    expect(Object.values(await storedCounts()).every((n) => n === 0)).toBe(true);
  });

  test('when the export is imported, then it answers as before: entries with versions and timestamps, products, searches', async () => {
    const out = await admin('tenant', 'import', '--file', exported);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`Imported tenant ${tenant}`);
    // The same Elasticsearch still knows the purged documents' versions (delete tombstones) and
    // would take the same versions for stale: an import just after a purge rebuilds both indices.
    expect(out.stdout).toMatch(/was purged from the search indices at .*: rebuilding them/);
    expect(out.stdout).toMatch(/Reindexed \d+ entries/);
    expect(out.stdout).toMatch(/Reindexed \d+ products/);
    token = await stack.token(tenant, 'Admin', ['--user', USER]); // tokens are never exported: a new one
    // Indexed again by the running services' indexers (entries in the background, products on a pass).
    const until = Date.now() + 90_000;
    for (;;) {
      await stack.indexPending();
      // The gateway keeps a tenant's lookup for 5 s: just after the purge it may still answer 401.
      const now = await answers(productIds).catch((err: Error) => err.message);
      if (JSON.stringify(now) === JSON.stringify(before)) break;
      if (Date.now() > until) {
        const state = async (name: string) =>
          db
            .collection(name)
            .find(
              { tenant_id: tenant },
              {
                projection: {
                  index_pending: 1,
                  needs_index: 1,
                  indexed_version: 1,
                  version: 1,
                  index_error: 1,
                  index_claim: 1,
                },
              },
            )
            .toArray();
        console.error(
          JSON.stringify({
            entries: await state('knowledge_entries'),
            products: await state('products'),
            indexed: await indexedCount(),
          }),
        );
        expect(now).toEqual(before);
        break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }, 120_000);

  test('when the same file is imported again, then it refuses; with --if-missing it skips and succeeds', async () => {
    const again = await admin('tenant', 'import', '--file', exported);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/already exists in this install; import never overwrites a tenant/);
    const skipped = await admin('tenant', 'import', '--file', exported, '--if-missing');
    expect(skipped.code).toBe(0);
    expect(skipped.stdout).toMatch(/import skipped/);
  });

  test.each([
    ['not JSON lines', () => 'this is not json\n', /line 1: not a tenant export/],
    [
      'another format version',
      (h: string) => h.replace('"version":1', '"version":2'),
      /format version 2 is not supported/,
    ],
    ['cut short', (h: string) => h.split('\n').slice(0, 4).join('\n'), /cut short/],
    ['a foreign document', (h: string) => h.replace(/("tenant_id":")[^"]+/, '$1someone-else'), /another tenant/],
  ])(
    'when the file is %s, then the import fails with one clear line and writes nothing',
    async (_what, mangle, message) => {
      const other = uniqueId('restore');
      const file = path.join(dir, `${other}.jsonl`);
      writeFileSync(file, mangle(readFileSync(exported, 'utf8').replaceAll(tenant, other)));
      const out = await admin('tenant', 'import', '--file', file);
      expect(out.code).toBe(2);
      expect(out.stderr.split('\n')[0]).toMatch(message);
      expect(out.stderr.split('\n')[0]).toMatch(/nothing was imported/);
      expect(await db.collection('tenants').countDocuments({ _id: other as never })).toBe(0);
      expect(await db.collection('knowledge_entries').countDocuments({ tenant_id: other })).toBe(0);
    },
  );
});

describe('day two: a resumed reindex', () => {
  test('when a reindex crashed after its first page, then --resume continues from there into the same index and finishes', async () => {
    const connection = await mongoose.createConnection(stack.mongoUri).asPromise();
    try {
      const ops = await knowledgeAdmin(connection);
      // The crash: the process dies once the first page (2 entries) is written and recorded.
      await expect(
        ops.reindexEntries({
          similarity: { address: stack.addresses.similarity, sign: testSigner() },
          logger: pino({ level: 'silent' }),
          pageSize: 2,
          onPage: () => {
            throw new Error('crashed');
          },
        }),
      ).rejects.toThrow('crashed');
    } finally {
      await connection.close();
    }
    const run = await db.collection('entry_reindex_runs').findOne({ _id: 'entries' as never });
    expect(run).toMatchObject({ status: 'running', done: 2 });

    const out = await admin('reindex', 'entries', '--resume', '--page-size', '2');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`Resuming the reindex of entries into ${run?.index as string}`);
    expect(out.stdout).toContain('after 2 entries');
    expect(out.stdout).toMatch(/Reindexed \d+ entries/);
    expect(await db.collection('entry_reindex_runs').findOne({ _id: 'entries' as never })).toMatchObject({
      status: 'finished',
    });
    // The entries of the page written before the crash are in the index now behind the alias.
    expect((await answers(productIds)).entrySearch).toEqual(before.entrySearch);
  }, 120_000);

  test('when another run of the kind holds its lease, then a reindex refuses naming it and begins nothing; free, it runs', async () => {
    const runs = db.collection<Record<string, unknown>>('product_reindex_runs');
    const holder = { owner: 'other-pod/7/1a2b3c4d', until: new Date(Date.now() + 60_000) };
    // The earlier runs (the import's rebuild) left the lease given back (holder null): another run takes it.
    await runs.updateOne({ _id: 'lease/products' as never }, { $set: { tenant_id: '', holder } }, { upsert: true });
    const progress = await runs.findOne({ _id: 'products' as never });
    const es = createElasticsearchClient(process.env.ELASTICSEARCH_URL as string);
    const indices = async () =>
      (await es.cat.indices({ index: `${stack.indexPrefix}-products-*`, format: 'json' })).length;
    const indicesBefore = await indices();

    const refused = await admin('reindex', 'products');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('a reindex of products is already running (other-pod/7/1a2b3c4d');
    expect(await runs.findOne({ _id: 'products' as never })).toEqual(progress);
    expect(await indices()).toBe(indicesBefore);

    // The other run finished (or its lease lapsed): this one runs, and gives the lease back.
    await runs.updateOne({ _id: 'lease/products' as never }, { $set: { holder: null } });
    const ran = await admin('reindex', 'products');
    expect(ran.code).toBe(0);
    expect(await runs.findOne({ _id: 'products' as never })).toMatchObject({ status: 'finished' });
    expect(await runs.findOne({ _id: 'lease/products' as never })).toMatchObject({ holder: null });
    await es.close();
  }, 120_000);

  test('when another import or purge of the tenant holds its lease, then a purge refuses, naming it, and removes nothing', async () => {
    const leases = db.collection<Record<string, unknown>>('knowledge_leases');
    const holder = { owner: 'other-pod/9/5e6f7a8b', until: new Date(Date.now() + 60_000) };
    await leases.updateOne(
      { _id: `tenant-data/${tenant}` as never },
      { $set: { tenant_id: '', holder } },
      { upsert: true },
    );
    const entriesBefore = await db.collection('knowledge_entries').countDocuments({ tenant_id: tenant });
    expect(entriesBefore).toBeGreaterThan(0);
    const refused = await admin('tenant', 'purge', '--tenant', tenant, '--yes');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`another import or purge of tenant "${tenant}" is running (other-pod/9/5e6f7a8b`);
    expect(await db.collection('knowledge_entries').countDocuments({ tenant_id: tenant })).toBe(entriesBefore);
    expect(await db.collection('tenants').countDocuments({ _id: tenant as never })).toBe(1);
    await leases.updateOne({ _id: `tenant-data/${tenant}` as never }, { $set: { holder: null } });
  }, 60_000);
});
