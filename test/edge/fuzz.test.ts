/**
 * Fuzzing every route the gateway serves, as a hostile client and a careless integrator would:
 * bodies, path and query parameters derived from the OpenAPI document the gateway publishes
 * (valid values, values at and just past each bound, and hostile ones mixed field by field),
 * plus raw texts no schema would produce (deep nesting, NUL and control characters, lone
 * surrogates, huge numbers and exponents, duplicate keys, wrong content types) and hostile
 * headers and path segments.
 *
 * The property, for every request: never a 5xx or a dropped connection; a 4xx answers in the
 * documented shape (422 {detail: [{loc, msg, type}]}, others {detail: string}); a refused
 * request writes nothing. Seeded (the seed is printed) and bounded for `npm test`;
 * KB_FUZZ_RUNS=<n> runs n cases per route and property (e.g. nightly), KB_FUZZ_SEED replays.
 */
import fc from 'fast-check';
import mongoose from 'mongoose';
import { startStack, uniqueId, type HttpResponse, type Stack } from '../support/stack';

const RUNS = Number(process.env.KB_FUZZ_RUNS ?? 25);
const SEED = Number(process.env.KB_FUZZ_SEED ?? 20261123);
const TIMEOUT = 120_000 + RUNS * 3_000;

let stack: Stack;
let db: mongoose.Connection;
const acme = uniqueId('acme');
let admin: string;
let openapi: any;
/** Real ids by parameter or field name, so generated requests can reach the services. */
const real: Record<string, string> = {};
const statuses = new Map<number, number>();
const started = Date.now();

beforeAll(async () => {
  // The rate limit would answer 429 to a long run before the services are reached.
  stack = await startStack({ env: { RATE_LIMIT_PER_MINUTE: '10000000', AUTH_FAILURES_PER_MINUTE: '0' } });
  db = await mongoose.createConnection(stack.mongoUri).asPromise();
  admin = await stack.tenantWithToken(acme, 'Admin');
  const post = (path: string, body: unknown) =>
    stack.request(acme, `/api/knowledge${path}`, { method: 'POST', token: admin, body });
  real.category_id = (await post('/categories', { name: 'C' })).json.id;
  real.parent_id = real.category_id as string;
  real.site_id = (await post('/sites', { slug: 'shop', name: 'Shop' })).json.id;
  real.entry_id = (
    await post('/knowledge-entries', {
      title: 'T',
      content: 'C',
      category_id: real.category_id,
      visibility: 'internal',
    })
  ).json.id;
  real.product_id = (await post('/products?site_id=shop', { title: 'P', language: 'en', external_id: 'p1' })).json.id;
  openapi = (await stack.request(acme, '/api/knowledge/openapi.json')).json;
  process.stdout.write(`fuzz: seed ${SEED}, ${RUNS} runs per route and property (KB_FUZZ_SEED / KB_FUZZ_RUNS)\n`);
}, 60_000);

afterAll(async () => {
  const total = [...statuses.values()].reduce((a, b) => a + b, 0);
  const byStatus = JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])));
  process.stdout.write(
    `fuzz: ${total} requests in ${((Date.now() - started) / 1000).toFixed(1)} s, by status ${byStatus}\n`,
  );
  await stack?.stop();
  await db?.close();
});

// ---------------------------------------------------------------------------------------------
// Routes and schemas, from the published document.

interface Route {
  method: string;
  path: string;
  params: { name: string; in: string; schema: any }[];
  body?: any;
}

function resolve(schema: any): any {
  const ref = schema?.$ref as string | undefined;
  return ref ? openapi.components.schemas[ref.split('/').pop() as string] : schema;
}

function allRoutes(): Route[] {
  const routes: Route[] = [];
  for (const [path, methods] of Object.entries<any>(openapi.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      let body = resolve(op.requestBody?.content?.['application/json']?.schema);
      // The bulk body types its items loosely (each is validated on its own): fuzz them as products.
      if (body?.properties?.products)
        body = {
          ...body,
          properties: {
            products: {
              type: 'array',
              items: resolve({ $ref: '#/components/schemas/ProductCreate' }),
              minItems: 1,
              maxItems: 3,
            },
          },
        };
      routes.push({
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []).filter((p: any) => p.in !== 'header'),
        body,
      });
    }
  }
  return routes;
}

const jsonRoutes = () => allRoutes().filter((r) => r.body);

// ---------------------------------------------------------------------------------------------
// Arbitraries: values from the schema, and hostile ones.

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 40,
});

const hostileString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 20 }), // lone surrogates and every plane
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff x',
    '\u202e',
    '$where',
    'a.b',
    '',
    ' ',
    '\n\t',
    '{"$gt":""}',
    '../..',
    '%00',
  ),
  fc.string({ minLength: 1, maxLength: 3 }).map((s) => s.repeat(20_000)),
);
const hostileNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(
    1e308,
    -1e308,
    0,
    -0,
    5e-324,
    Number.MAX_SAFE_INTEGER + 2,
    2 ** 31,
    2 ** 31 - 1,
    -(2 ** 31) - 1,
    2 ** 63,
    0.1 + 0.2,
  ),
);
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  hostileNumber,
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 3 }),
  fc.array(hostileString, { maxLength: 5 }),
  fc.dictionary(hostileString, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
);

/** Fields that name another resource: a real one most of the time, so the write can succeed. */
const REFERS_TO: Record<string, string> = {
  category_id: 'category_id',
  parent_id: 'category_id',
  entry_ids: 'entry_id',
  translation_of: 'entry_id',
  anchor_product_ids: 'product_id',
  exclude_product_ids: 'product_id',
  site_id: 'site_id',
};

/** A string for the schema: short valid ones, then exactly at and one past each bound. */
function stringFor(schema: any, name?: string): fc.Arbitrary<string> {
  const ref = name && real[REFERS_TO[name] ?? ''];
  if (ref) return fc.oneof({ weight: 3, arbitrary: fc.constant(ref) }, { weight: 1, arbitrary: stringFor(schema) });
  if (schema.format === 'uuid') return fc.oneof(fc.constantFrom(...Object.values(real)), fc.uuid());
  if (schema.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern));
    } catch {
      // a pattern fast-check cannot generate from (lookarounds): any string
    }
  }
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 10_000;
  const short = fc.string({ minLength: min, maxLength: Math.max(min, Math.min(max, 24)) });
  const bounds = [max, max + 1, ...(min > 0 ? [min - 1] : [])].map((n) => 'x'.repeat(n));
  return fc.oneof({ weight: 6, arbitrary: short }, { weight: 1, arbitrary: fc.constantFrom(...bounds) });
}

function numberFor(schema: any): fc.Arbitrary<number> {
  const min = schema.minimum ?? -1e6;
  const max = schema.maximum ?? 1e6;
  const inside = schema.type === 'integer' ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true });
  const edges = [
    min,
    max,
    schema.type === 'integer' ? min - 1 : min - 0.5,
    schema.type === 'integer' ? max + 1 : max + 0.5,
  ];
  return fc.oneof({ weight: 4, arbitrary: inside }, { weight: 1, arbitrary: fc.constantFrom(...edges) });
}

const keyName = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[a-z_]{1,12}$/) },
  { weight: 1, arbitrary: hostileString },
);

/** A value for a (resolved) JSON schema from the document. */
function schemaValue(input: any, depth = 0, name?: string): fc.Arbitrary<unknown> {
  const schema = resolve(input) ?? {};
  if (depth > 4) return fc.constant(null);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.anyOf)) return fc.oneof(...schema.anyOf.map((s: any) => schemaValue(s, depth, name)));
  switch (schema.type) {
    case 'string':
      return stringFor(schema, name);
    case 'integer':
    case 'number':
      return numberFor(schema);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      return fc.array(schemaValue(schema.items, depth + 1, name), {
        minLength,
        maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 4, 4)),
      });
    }
    case 'object':
      if (schema.properties) return objectFor(schema, depth);
      return fc.dictionary(keyName, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 });
    default:
      return fc.jsonValue({ maxDepth: 3 });
  }
}

/**
 * An object for the schema: sometimes every field from the schema (so writes succeed and reach
 * the services and backends), else each field hostile one time in five; required fields
 * usually present, an unknown field now and then.
 */
function objectFor(schema: any, depth = 0): fc.Arbitrary<unknown> {
  const props = Object.entries<any>(schema.properties ?? {});
  const required = { requiredKeys: (schema.required ?? []) as string[] };
  const valid = fc.record(Object.fromEntries(props.map(([k, s]) => [k, schemaValue(s, depth + 1, k)])), required);
  const mixed = (s: any, k: string) =>
    fc.oneof({ weight: 4, arbitrary: schemaValue(s, depth + 1, k) }, { weight: 1, arbitrary: hostileValue });
  const hostile = fc.record(Object.fromEntries(props.map(([k, s]) => [k, mixed(s, k)])), required);
  const anyKeys = fc.record(Object.fromEntries(props.map(([k, s]) => [k, mixed(s, k)])), { requiredKeys: [] });
  const extra = fc.dictionary(keyName, hostileValue, { minKeys: 1, maxKeys: 1 });
  return fc.oneof(
    { weight: 3, arbitrary: valid },
    { weight: 3, arbitrary: hostile },
    { weight: 1, arbitrary: anyKeys },
    { weight: 1, arbitrary: fc.tuple(hostile, extra).map(([a, b]) => ({ ...b, ...(a as object) })) },
  );
}

/** Texts no JSON serialiser would write: each is sent as the raw body. */
const rawBody = fc.oneof(
  fc.integer({ min: 33, max: 5000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
  fc.integer({ min: 33, max: 5000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
  fc.integer({ min: 33, max: 3000 }).map((n) => `{"title":"T","metadata":${'{"m":'.repeat(n)}1${'}'.repeat(n)}}`),
  fc.constantFrom(
    '{"title":"a","title":"b"}',
    '{"x":1e400}',
    '{"x":-1e400}',
    '{"price_current":1e-400}',
    '{"price_current":1e999999999}',
    '{"rating_count":1e308}',
    `{"price_current":${'9'.repeat(5000)}}`,
    '{"a":"\\ud800"}',
    '{"\\u0000":1}',
    '{"metadata":{"\\u0000":1}}',
    '{"attributes":{"$where":1}}',
    '\ufeff{"title":"a","title":"b"}',
  ),
  fc.constantFrom('{', '}', '[1,]', 'nul', '"unterminated', '{"a":1}{"b":2}', '\u0000', '', 'null', '[]', '"x"', '1'),
  fc.string({ maxLength: 200 }),
);
const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=latin1',
  'application/merge-patch+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
);

/** A path segment a careless or hostile client sends in place of an id. */
const hostileSegment = fc.oneof(
  fc.uuid(),
  fc.constantFrom(
    '%00',
    '%ZZ',
    '%',
    '%E0%A4%A',
    '..',
    '%2e%2e%2f',
    'null',
    '-1',
    '0',
    '%F0%9F%98%80',
    'a'.repeat(5000),
    'shop',
  ),
  printable.map(encodeURIComponent),
);

/** Path parameters: a real id half the time (so the request reaches the services), else hostile. */
function pathFor(route: Route): fc.Arbitrary<string> {
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
  // A DELETE of a fixture would leave later cases nothing to reach: deletes get other ids.
  const segment = (name: string) =>
    real[name] && route.method !== 'DELETE'
      ? fc.oneof(fc.constant(real[name] as string), hostileSegment)
      : hostileSegment;
  return fc.tuple(...names.map(segment)).map((values) => {
    let i = 0;
    return route.path.replace(/\{(\w+)\}/g, () => values[i++] as string);
  });
}

/** A query string from the route's documented parameters, with hostile spellings and extras. */
function queryFor(route: Route): fc.Arbitrary<string> {
  const params = route.params.filter((p) => p.in === 'query');
  const value = (p: any) =>
    fc.oneof(
      { weight: 3, arbitrary: schemaValue(p.schema).map((v) => encodeURIComponent(String(v))) },
      { weight: 1, arbitrary: fc.constantFrom('%ZZ', '', '1e400', '-0', 'true', '%00', 'a'.repeat(3000)) },
    );
  const pairs = params.map((p) =>
    fc.option(
      value(p).map((v) => `${p.name}=${v}`),
      { nil: undefined, freq: 2 },
    ),
  );
  const extra = fc.option(
    fc.constantFrom('site_id=shop&site_id=x', 'limit=1&limit=2', 'unknown=1', '%ZZ=1', 'cursor=%00'),
    { nil: undefined, freq: 3 },
  );
  return fc.tuple(fc.tuple(...pairs), extra).map(([ps, e]) => {
    const all = [...ps, e].filter((x): x is string => x !== undefined);
    return all.length ? `?${all.join('&')}` : '';
  });
}

/** Headers the gateway reads, with values a client may send; printable ASCII only (Node refuses the rest). */
const readHeaders = fc.record(
  {
    'If-Match': fc.oneof(fc.constantFrom('"1"', '*', 'W/"2"', '"abc"', '"99999999999"', '"1", "2"', ''), printable),
    'X-Scopes': fc.oneof(
      fc.constantFrom(
        'knowledge:read',
        'knowledge:read knowledge:write',
        'knowledge:admin knowledge:write knowledge:read',
        '',
        'admin',
      ),
      printable,
    ),
    'X-Audit-Source': fc.oneof(fc.constantFrom('api', 'mcp', 'x'.repeat(65)), printable),
    'X-Client-Id': fc.oneof(printable, fc.constant('c'.repeat(4000))),
    'X-Request-Id': fc.oneof(printable, fc.constant('r'.repeat(4000))),
  },
  { requiredKeys: [] },
);
// A bad token answers 401 before anything else is read: one request in eight carries one.
const badAuthorization = fc.oneof(
  { weight: 7, arbitrary: fc.constant({}) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('Bearer kbt_nope', 'Basic YTpi', 'Bearer ', `Bearer ${'k'.repeat(4000)}`)
      .map((v) => ({ Authorization: v })),
  },
);
const headers = fc.tuple(readHeaders, badAuthorization).map(([h, a]) => ({ ...h, ...a }) as Record<string, string>);

// ---------------------------------------------------------------------------------------------
// The property.

/** Every stored document of the tenant's kinds: a refused request must leave these unchanged. */
async function footprint(): Promise<string> {
  const names = ['categories', 'knowledge_entries', 'knowledge_entry_versions', 'sites', 'products', 'site_knowledge'];
  const counts = await Promise.all(names.map((n) => db.collection(n).countDocuments({ tenant_id: acme })));
  const versions = await Promise.all(
    ['knowledge_entries', 'products', 'sites', 'categories'].map((n) =>
      db
        .collection(n)
        .find({ tenant_id: acme }, { projection: { version: 1, updated_at: 1 } })
        .toArray(),
    ),
  );
  return JSON.stringify([counts, versions]);
}

function expectDocumentedShape(res: HttpResponse, label: string): void {
  if (res.status >= 500) throw new Error(`${label}: ${res.status} ${res.text.slice(0, 300)}`);
  if (res.status < 400) return;
  if (res.status === 422) {
    expect({ label, detail: Array.isArray(res.json?.detail) }).toEqual({ label, detail: true });
    for (const issue of res.json.detail) {
      expect(Array.isArray(issue.loc)).toBe(true);
      expect(typeof issue.msg).toBe('string');
      expect(typeof issue.type).toBe('string');
    }
  } else {
    expect({ label, detail: typeof res.json?.detail }).toEqual({ label, detail: 'string' });
  }
}

interface Sent {
  route: Route;
  url: string;
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

/** Sends one request and checks the property; a dropped connection rejects and fails the case. */
async function send({
  route,
  url,
  body,
  contentType: type = 'application/json',
  headers: extra = {},
}: Sent): Promise<HttpResponse> {
  const before = route.method === 'GET' ? '' : await footprint();
  const res = await stack.request(acme, url, {
    method: route.method,
    token: extra.Authorization ? undefined : admin,
    body,
    headers: { ...(body !== undefined ? { 'Content-Type': type } : {}), ...extra },
  });
  const label =
    `${route.method} ${url.slice(0, 200)} ${JSON.stringify(extra).slice(0, 200)} ` +
    `with ${JSON.stringify((body ?? '').slice(0, 120))}`;
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  expectDocumentedShape(res, label);
  if (res.status >= 400 && before) expect({ label, after: await footprint() }).toEqual({ label, after: before });
  return res;
}

/** The product routes take the site in the query; the search routes do not. */
const withSite = (route: Route, url: string) =>
  route.params.some((p) => p.in === 'query' && p.name === 'site_id') ? `${url}?site_id=shop` : url;

async function forEachRoute(routes: Route[], property: (route: Route) => fc.IAsyncProperty<any>): Promise<void> {
  for (const route of routes) await fc.assert(property(route), { seed: SEED, numRuns: RUNS, endOnFailure: true });
}

describe('fuzzing every route', () => {
  test(
    'when JSON bodies carry schema fields with valid, boundary and hostile values, then never a 5xx and a refusal writes nothing',
    async () => {
      const routes = jsonRoutes();
      expect(routes.length).toBeGreaterThanOrEqual(12);
      await forEachRoute(routes, (route) =>
        fc.asyncProperty(objectFor(route.body), pathFor(route), async (body, path) => {
          await send({ route, url: withSite(route, path), body: JSON.stringify(body) });
        }),
      );
    },
    TIMEOUT,
  );

  test(
    'when raw bodies are malformed, deep, duplicated, huge or of the wrong type, then a 4xx in the documented shape and nothing written',
    async () => {
      await forEachRoute(jsonRoutes(), (route) =>
        fc.asyncProperty(rawBody, pathFor(route), contentType, async (body, path, type) => {
          const res = await send({ route, url: withSite(route, path), body, contentType: type });
          expect(res.status).toBeGreaterThanOrEqual(400);
        }),
      );
    },
    TIMEOUT,
  );

  test(
    'when path segments, query strings and headers are hostile on any route, then never a 5xx and a refusal writes nothing',
    async () => {
      const routes = allRoutes();
      expect(routes.length).toBeGreaterThanOrEqual(25);
      await forEachRoute(routes, (route) =>
        fc.asyncProperty(
          pathFor(route),
          queryFor(route),
          headers,
          route.body ? objectFor(route.body) : fc.constant(undefined),
          async (path, query, extra, body) => {
            await send({
              route,
              url: path + query,
              body: body === undefined ? undefined : JSON.stringify(body),
              headers: extra,
            });
          },
        ),
      );
    },
    TIMEOUT,
  );
});
