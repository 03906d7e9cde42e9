/**
 * Fuzzing every JSON route the gateway serves, as a hostile client and a careless integrator
 * would: bodies built from the OpenAPI document's own schemas (each field given a random or
 * hostile value), plus raw texts no schema would produce (deep nesting, NUL and control
 * characters, lone surrogates, huge numbers, duplicate keys, wrong content types).
 *
 * The property, for every request: never a 5xx or a dropped connection; a 4xx answers in the
 * documented shape; a refused request writes nothing. Seeded (the seed is printed) and bounded
 * for `npm test`; KB_FUZZ_RUNS=<n> runs n cases per route (e.g. nightly), KB_FUZZ_SEED replays.
 */
import fc from 'fast-check';
import mongoose from 'mongoose';
import { startStack, uniqueId, type HttpResponse, type Stack } from '../support/stack';

const RUNS = Number(process.env.KB_FUZZ_RUNS ?? 30);
const SEED = Number(process.env.KB_FUZZ_SEED ?? 20261123);

let stack: Stack;
let db: mongoose.Connection;
const acme = uniqueId('acme');
let admin: string;
let openapi: any;
const real: Record<string, string> = {};

beforeAll(async () => {
  stack = await startStack();
  db = await mongoose.createConnection(stack.mongoUri).asPromise();
  admin = await stack.tenantWithToken(acme, 'Admin');
  const post = (path: string, body: unknown) => stack.request(acme, `/api/knowledge${path}`, { method: 'POST', token: admin, body });
  real.category_id = (await post('/categories', { name: 'C' })).json.id;
  real.site_id = (await post('/sites', { slug: 'shop', name: 'Shop' })).json.id;
  real.entry_id = (await post('/knowledge-entries', { title: 'T', content: 'C', category_id: real.category_id, visibility: 'internal' })).json.id;
  real.product_id = (await post('/products?site_id=shop', { title: 'P', language: 'en', external_id: 'p1' })).json.id;
  openapi = (await stack.request(acme, '/api/knowledge/openapi.json')).json;
  process.stdout.write(`fuzz: seed ${SEED}, ${RUNS} runs per route and kind (KB_FUZZ_SEED / KB_FUZZ_RUNS)\n`);
}, 60_000);
afterAll(async () => {
  const total = [...statuses.values()].reduce((a, b) => a + b, 0);
  process.stdout.write(`fuzz: ${total} requests, by status ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}\n`);
  await stack?.stop();
  await db?.close();
});

/** Every stored document of the tenant's kinds: a refused request must leave these unchanged. */
async function footprint(): Promise<string> {
  const names = ['categories', 'knowledge_entries', 'knowledge_entry_versions', 'sites', 'products'];
  const counts = await Promise.all(names.map((n) => db.collection(n).countDocuments({ tenant_id: acme })));
  const versions = await Promise.all(['knowledge_entries', 'products', 'sites', 'categories'].map((n) => db.collection(n).find({ tenant_id: acme }, { projection: { version: 1, updated_at: 1 } }).toArray()));
  return JSON.stringify([counts, versions]);
}

interface Route {
  method: string;
  path: string;
  schema: any;
}

function jsonRoutes(): Route[] {
  const routes: Route[] = [];
  for (const [path, methods] of Object.entries<any>(openapi.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (schema) routes.push({ method: method.toUpperCase(), path, schema: resolve(schema) });
    }
  }
  return routes;
}

function resolve(schema: any): any {
  const ref = schema?.$ref as string | undefined;
  return ref ? openapi.components.schemas[ref.split('/').pop() as string] : schema;
}

/** Path parameters get a real id half the time (so writes can reach the services), else a random one. */
function urlFor(route: Route, rnd: number): string {
  let url = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const key = name === 'site_id' ? 'site_id' : name;
    return rnd % 2 === 0 && real[key] ? real[key] : '00000000-0000-4000-8000-00000000000' + (rnd % 10);
  });
  if (url.includes('/products') && !url.includes('/search')) url += '?site_id=shop';
  return url;
}

const hostileString = fc.oneof(
  fc.string(),
  fc.constantFrom('\u0000', 'a\u0000b', '\ud800', '\udfff x', '\u202e', '$where', 'a.b', '', ' ', '\n\t'),
  fc.string({ minLength: 1, maxLength: 3 }).map((s) => s.repeat(20_000)),
);
const hostileNumber = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(1e308, -1e308, 0, -0, 5e-324, Number.MAX_SAFE_INTEGER + 2));
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  hostileNumber,
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 3 }),
  fc.array(hostileString, { maxLength: 5 }),
  fc.dictionary(hostileString, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
);

/** An object with the schema's field names (a random subset) and random or hostile values. */
function schemaBody(schema: any): fc.Arbitrary<unknown> {
  const keys = Object.keys(schema?.properties ?? {});
  if (!keys.length) return fc.jsonValue({ maxDepth: 3 });
  return fc.record(Object.fromEntries(keys.map((k) => [k, hostileValue])), { requiredKeys: [] });
}

/** Texts no JSON serialiser would write: each is sent as the raw body. */
const rawBody = fc.oneof(
  fc.integer({ min: 33, max: 5000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
  fc.integer({ min: 33, max: 5000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
  fc.constantFrom('{"title":"a","title":"b"}', '{"x":1e400}', '{"x":-1e400}', '{"price_current":1e-400}', '{"a":"\\ud800"}', '{"\\u0000":1}'),
  fc.constantFrom('{', '}', '[1,]', 'nul', '"unterminated', '{"a":1}{"b":2}', '\u0000', ''),
  fc.string({ maxLength: 200 }),
);

function expectDocumentedShape(res: HttpResponse, label: string): void {
  if (res.status >= 500) throw new Error(`${label}: ${res.status} ${res.text.slice(0, 300)}`);
  if (res.status < 400) return;
  if (res.status === 422) {
    expect(Array.isArray(res.json?.detail)).toBe(true);
    for (const issue of res.json.detail) {
      expect(Array.isArray(issue.loc)).toBe(true);
      expect(typeof issue.msg).toBe('string');
      expect(typeof issue.type).toBe('string');
    }
  } else {
    expect(typeof res.json?.detail).toBe('string');
  }
}

const statuses = new Map<number, number>();

async function send(route: Route, url: string, body: string, contentType = 'application/json'): Promise<HttpResponse> {
  const before = route.method === 'GET' ? '' : await footprint();
  const res = await stack.request(acme, `${url}`, { method: route.method, token: admin, body, headers: { 'Content-Type': contentType } });
  const label = `${route.method} ${url} with ${JSON.stringify(body.slice(0, 120))}`;
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  expectDocumentedShape(res, label);
  if (res.status >= 400 && before) expect({ label, after: await footprint() }).toEqual({ label, after: before });
  return res;
}

describe('fuzzing every JSON route', () => {
  test('when bodies carry schema fields with random and hostile values, then never a 5xx and a refusal writes nothing', async () => {
    const routes = jsonRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(12);
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(schemaBody(route.schema), fc.nat(), async (body, rnd) => {
          await send(route, urlFor(route, rnd), JSON.stringify(body));
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    }
  }, 120_000);

  test('when raw bodies are malformed, deep, duplicated or of the wrong type, then a 4xx in the documented shape and nothing written', async () => {
    for (const route of jsonRoutes()) {
      await fc.assert(
        fc.asyncProperty(rawBody, fc.nat(), fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded'), async (body, rnd, type) => {
          const res = await send(route, urlFor(route, rnd), body, type);
          expect(res.status).toBeGreaterThanOrEqual(400);
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    }
  }, 120_000);
});
