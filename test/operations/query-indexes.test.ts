/**
 * Every query the services send MongoDB is one their repositories declare, and so one a declared
 * index serves (services/<svc>/test/query-indexes.test.ts checks the declared shapes against the
 * schemas' indexes, without a backend).
 *
 * How the queries are caught: the driver's command monitoring (`monitorCommands=true` in the
 * stack's connection string, `commandStarted` on every mongoose connection of this process). It
 * sees what reaches the server, whichever way the code sent it (a model, a raw collection, a
 * bulk write, countDocuments' aggregation), with the sort as sent; mongoose's debug hook and
 * query middleware see only part of that (not the raw collections' sorts, not bulk writes).
 * The test then drives the API and the admin CLI through the paths that query MongoDB (tenants,
 * tokens, categories, entries, translations, skills, sites and their knowledge, products and
 * variants, deletes, search, the indexers, refusals, a reindex) and asserts each filter sent is
 * a declared shape: a new query, or a new field in one, fails here until its repository
 * declares it, and then the unit test asks for its index.
 */
import mongoose, { type mongo } from 'mongoose';
import { describeFilterShape, matchesShape, shapeOfFilter, type FilterShape, type QueryShape } from '@kb/mongo';
import { KNOWLEDGE_QUERIES } from '@kb/knowledge';
import { CATALOG_QUERIES } from '@kb/catalog';
import { databaseUri, startStack, uniqueId, type Stack } from '../support/stack';

const DECLARED: QueryShape[] = [...KNOWLEDGE_QUERIES, ...CATALOG_QUERIES];

interface Sent {
  collection: string;
  command: string;
  shape: FilterShape;
}

type Doc = Record<string, unknown>;

/** The filters (and sorts) of one command as sent; none for commands that filter nothing (inserts, index builds, handshakes). */
function filtersOf(command: mongo.Document, name: string): Sent[] {
  const on = (collection: unknown, filter: unknown, sort?: unknown): Sent => ({
    collection: String(collection),
    command: name,
    shape: shapeOfFilter(filter as Doc | undefined, sort as Doc | Map<string, unknown> | undefined),
  });
  switch (name) {
    case 'find':
      return [on(command.find, command.filter, command.sort)];
    case 'update':
      return (command.updates as { q: Doc }[]).map((u) => on(command.update, u.q));
    case 'delete':
      return (command.deletes as { q: Doc }[]).map((d) => on(command.delete, d.q));
    case 'findAndModify':
      return [on(command.findAndModify, command.query, command.sort)];
    case 'distinct':
      return [on(command.distinct, command.query)];
    case 'count':
      // Without a query, the collection's metadata count (estimatedDocumentCount): no document read.
      return command.query && Object.keys(command.query as Doc).length ? [on(command.count, command.query)] : [];
    case 'aggregate': {
      const stages = command.pipeline as Doc[];
      const match = stages.find((s) => '$match' in s)?.$match;
      const sort = stages.find((s) => '$sort' in s)?.$sort;
      return [on(command.aggregate, match ?? {}, sort)];
    }
    default:
      return [];
  }
}

let stack: Stack;
const sent: Sent[] = [];
const acme = uniqueId('acme');
let admin: string;

beforeAll(async () => {
  const uri = new URL(databaseUri(uniqueId('kbtest')));
  uri.searchParams.set('monitorCommands', 'true');
  stack = await startStack({ env: { MONGODB_URI: uri.toString() } });
  // The services' connections and the admin CLI's (mongoose's default connection is never opened: no client).
  for (const connection of mongoose.connections) {
    const client = connection.getClient() as mongo.MongoClient | undefined;
    client?.on('commandStarted', (event) => sent.push(...filtersOf(event.command, event.commandName)));
  }
  admin = await stack.tenantWithToken(acme, 'Admin');
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

/** Calls that did not succeed: reported with the check, since a failed call leaves its queries unsent. */
const failed: string[] = [];
const answered = (res: { status: number }, path: string) => {
  if (res.status >= 300) failed.push(`${path}: ${res.status}`);
};

const call = (path: string, method = 'GET', body?: unknown) =>
  stack.request(acme, `/api/knowledge${path}`, { method, token: admin, ...(body === undefined ? {} : { body }) });

describe('the queries the services send MongoDB', () => {
  test('when the API and the admin CLI drive every path to MongoDB, then each filter sent is a declared shape', async () => {
    // Tokens: create, use, look one up by prefix.
    const agent = await stack.token(acme, 'Agent');
    expect((await stack.request(acme, '/api/knowledge/categories', { token: agent })).status).toBe(200);
    await expect(stack.admin('token', 'revoke', '--tenant', acme, 'ffffffffffff')).rejects.toThrow(/No token/);
    await stack.admin('tenant', 'settings', '--tenant', acme, '--set', 'workspaces_enabled=true');

    // Categories: create, list (all, of a parent), move, get, delete.
    const top = (await call('/categories', 'POST', { name: 'Shipping' })).json.id as string;
    const child = (await call('/categories', 'POST', { name: 'Parcels', parent_id: top })).json.id as string;
    const other = (await call('/categories', 'POST', { name: 'Returns', sort_order: 2 })).json.id as string;
    answered(await call('/categories'), '/categories');
    answered(await call(`/categories?parent_id=${top}`), `/categories?parent_id=${top}`);
    answered(await call(`/categories/${child}`, 'PUT', { parent_id: other }), `/categories/${child}`);
    answered(await call(`/categories/${child}`), `/categories/${child}`);

    // Entries: create, read, list (filters, pages), update, versions, translations, skills, delete.
    const entry = (body: Doc) =>
      call('/knowledge-entries', 'POST', { category_id: top, visibility: 'internal', ...body });
    const first = (await entry({ title: 'How to ship', content: 'Use DHL.' })).json;
    await entry({ title: 'Returns', content: 'Within 30 days.', category_id: other });
    await entry({ title: 'Memory', content: 'Remember me.', type: 'memory' });
    const english = await entry({ title: 'Shipping', content: 'With DHL.', language: 'en', translation_of: first.id });
    answered(english, 'translation');
    const skill = await entry({
      title: 'Refunds',
      content: 'Refund within 14 days.',
      type: 'skill',
      metadata: { trigger_description: 'a customer asks for a refund' },
    });
    answered(skill, 'skill');
    answered(await call(`/knowledge-entries/${first.id}`), `/knowledge-entries/${first.id}`);
    const page = await call('/knowledge-entries?limit=1');
    const next = /<([^>]+)>; rel="next"/.exec(String(page.headers.link ?? ''))?.[1];
    if (next) answered(await stack.request(acme, next, { token: admin }), 'next page');
    else failed.push('no next page');
    answered(
      await call(`/knowledge-entries?category_id=${top}&limit=1`),
      `/knowledge-entries?category_id=${top}&limit=1`,
    );
    answered(
      await call('/knowledge-entries?type=memory&include_expired=true'),
      '/knowledge-entries?type=memory&include_expired=true',
    );
    const updated = await call(`/knowledge-entries/${first.id}`, 'PUT', { content: 'Use DHL or UPS.' });
    answered(updated, 'update');
    answered(await call(`/knowledge-entries/${first.id}/versions`), `/knowledge-entries/${first.id}/versions`);
    answered(await call(`/knowledge-entries/${skill.json.id}`, 'DELETE'), `/knowledge-entries/${skill.json.id}`);
    answered(await call(`/categories/${child}`, 'DELETE'), `/categories/${child}`);

    // Sites: create, list, by slug, update, default, assign knowledge, delete (swept from entries).
    const shop = (await call('/sites', 'POST', { slug: 'shop', name: 'Shop' })).json.id as string;
    const outlet = (await call('/sites', 'POST', { slug: 'outlet', name: 'Outlet' })).json.id as string;
    answered(await call('/sites'), '/sites');
    answered(await call(`/sites/${outlet}`), `/sites/${outlet}`);
    answered(await call(`/sites/${outlet}`, 'PUT', { name: 'Outlet store', is_default: true }), `/sites/${outlet}`);
    answered(await call(`/sites/${outlet}/knowledge`, 'PUT', { entry_ids: [first.id] }), `/sites/${outlet}/knowledge`);

    // Products: upserts, a child before its parent, bulk, read, search, delete the parent.
    const product = (body: Doc, site = 'shop') =>
      call(`/products?site_id=${site}`, 'POST', { language: 'en', ...body });
    await product({ title: 'Trail shoe (42)', external_id: 'shoe-42', parent_external_id: 'shoe' });
    const parent = (await product({ title: 'Trail shoe', external_id: 'shoe', similarity_text: 'running shoe' })).json;
    await product({ title: 'Trail shoe', external_id: 'shoe', similarity_text: 'running shoe' });
    const bulk = await call('/products/bulk?site_id=shop', 'POST', {
      products: [
        { title: 'Rain jacket', language: 'en', external_id: 'jacket' },
        { title: 'Trail shoe (43)', language: 'en', external_id: 'shoe-43', parent_external_id: 'shoe' },
      ],
    });
    answered(bulk, 'bulk');
    answered(await call(`/products/${parent.id}`), `/products/${parent.id}`);
    await stack.indexPending();
    answered(await call('/search/products', 'POST', { query: 'shoe' }), '/search/products');
    expect((await call('/search/similar', 'POST', { anchor_product_ids: [parent.id] })).status).toBeLessThan(500);
    answered(await call('/search/entries', 'POST', { query: 'ship' }), '/search/entries');
    answered(await call(`/products/${parent.id}`, 'DELETE'), `/products/${parent.id}`);
    await stack.indexPending();
    expect((await call(`/sites/${shop}`, 'DELETE')).status).toBeLessThan(500);
    expect((await call(`/sites/${outlet}`, 'DELETE')).status).toBeLessThan(500);

    // The admin CLI: refusals, a retry, a reindex of both kinds.
    await stack.admin('index', 'errors', '--tenant', acme);
    await stack.admin('index', 'retry', '--tenant', acme);
    await stack.catalogAdmin('index', 'errors');
    await stack.catalogAdmin('index', 'retry', '--tenant', acme);
    if ((await stack.catalogAdmin('reindex', 'products')).code !== 0) failed.push('reindex products');
    await stack.admin('reindex', 'entries');
    await stack.indexPending();

    const collections = new Set(DECLARED.map((d) => d.collection));
    const undeclared = new Map<string, Sent>();
    for (const s of sent) {
      if (!collections.has(s.collection) && s.collection.startsWith('system.')) continue;
      if (!DECLARED.some((d) => d.collection === s.collection && matchesShape(s.shape, d)))
        undeclared.set(`${describeFilterShape(s.collection, s.shape)} (${s.command})`, s);
    }
    expect({ failed, undeclared: [...undeclared.keys()] }).toEqual({ failed: [], undeclared: [] });
    // The capture saw the paths above (a broken capture would pass the check with nothing).
    for (const c of ['knowledge_entries', 'categories', 'products', 'sites', 'api_tokens', 'tenants'])
      expect(sent.some((s) => s.collection === c)).toBe(true);
  }, 300_000);
});
