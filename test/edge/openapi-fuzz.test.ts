/**
 * The served OpenAPI document tells the truth: a document-driven fuzzer (test/support/openapi-fuzzer.ts,
 * checks named as Schemathesis names them) runs every operation of the document against the real
 * stack, with positive and negative data, a request without and with a wrong token per operation,
 * every undocumented method on every path, and per resource a stateful create → get → update →
 * delete → get sequence; any finding fails the test with a readable list.
 *
 * Seeded and bounded for `npm test` (~2,000 requests); KB_OPENAPI_FUZZ_RUNS=<n> generates n
 * positive and n negative requests per operation (default 30), KB_OPENAPI_FUZZ_SEED replays a run.
 */
import fc from 'fast-check';
import { startStack, uniqueId, type HttpResponse, type Stack } from '../support/stack';
import {
  Generator,
  Validator,
  mutations,
  operations,
  parameterMutations,
  type Doc,
  type Finding,
  type FuzzRequest,
  type Operation,
  type Pools,
} from '../support/openapi-fuzzer';

const RUNS = Number(process.env.KB_OPENAPI_FUZZ_RUNS ?? 30);
const SEED = Number(process.env.KB_OPENAPI_FUZZ_SEED ?? 20261125);
const SEQUENCES = Math.max(2, Math.round(RUNS / 8));

const POSITIVE_OK = (s: number) => (s >= 200 && s < 300) || [401, 403, 404, 409].includes(s);
const NEGATIVE_OK = [400, 401, 403, 404, 406, 422, 428];
const PROBED_METHODS = ['get', 'put', 'post', 'delete', 'options', 'patch', 'trace', 'query'];

let stack: Stack;
let doc: Doc;
let validator: Validator;
let gen: Generator;
let token: string;
const acme = uniqueId('acme');
const pools: Pools = { category: [], entry: [], site: [], product: [], slug: [] };
const findings: Finding[] = [];
const statuses = new Map<number, number>();
let sent = 0;
let seedCounter = SEED;

beforeAll(async () => {
  stack = await startStack({ env: { RATE_LIMIT_PER_MINUTE: '10000000', AUTH_FAILURES_PER_MINUTE: '0' } });
  token = await stack.tenantWithToken(acme, 'Admin');
  doc = (await stack.request(acme, '/api/knowledge/openapi.json')).json;
  validator = new Validator(doc);
  gen = new Generator(doc, pools);
  const post = async (path: string, body: unknown) =>
    (await stack.request(acme, `/api/knowledge${path}`, { method: 'POST', token, body })).json;
  const category = await post('/categories', { name: 'Fuzz' });
  const site = await post('/sites', { slug: 'shop', name: 'Shop' });
  pools.category.push(category.id);
  pools.site.push(site.id);
  pools.slug.push('shop');
  for (const title of ['Returns', 'Shipping']) {
    const entry = await post('/knowledge-entries', {
      title,
      content: `${title} policy`,
      category_id: category.id,
      visibility: 'internal',
      language: 'en',
    });
    pools.entry.push(entry.id);
  }
  for (const title of ['Trail shoe', 'Road shoe'])
    pools.product.push((await post('/products?site_id=shop', { title, language: 'en', external_id: title })).id);
  process.stdout.write(
    `openapi-fuzz: seed ${SEED}, ${RUNS} runs per operation (KB_OPENAPI_FUZZ_SEED / KB_OPENAPI_FUZZ_RUNS)\n`,
  );
}, 120_000);

afterAll(async () => {
  const byStatus = JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])));
  process.stdout.write(`openapi-fuzz: ${sent} requests, ${findings.length} findings, by status ${byStatus}\n`);
  await stack?.stop();
});

// ---------------------------------------------------------------------------------------------
// Requests

function sample<T>(arb: fc.Arbitrary<T>, n: number): T[] {
  return fc.sample(arb, { seed: seedCounter++, numRuns: n });
}

function label(op: Operation): string {
  return `${op.method.toUpperCase()} ${op.path}`;
}

const params = (op: Operation, where: string) =>
  (op.op.parameters ?? []).filter((p: Doc) => p.in === where) as { name: string; required: boolean; schema: Doc }[];

const bodySchema = (op: Operation): Doc | undefined => op.op.requestBody?.content?.['application/json']?.schema;

/** A valid request for the operation, generated from its parameters and body schema. */
function requestArbitrary(op: Operation): fc.Arbitrary<FuzzRequest> {
  const path = fc.record(
    Object.fromEntries(params(op, 'path').map((p) => [p.name, gen.arbitrary(p.schema, 0, p.name)])),
  );
  const query = fc.record(
    Object.fromEntries(params(op, 'query').map((p) => [p.name, gen.arbitrary(p.schema, 0, p.name)])),
    {
      requiredKeys: params(op, 'query')
        .filter((p) => p.required)
        .map((p) => p.name),
    },
  );
  const headers = fc.record(
    Object.fromEntries(
      params(op, 'header')
        .filter((p) => p.schema.pattern || p.name === 'X-Scopes')
        .map((p) => [
          p.name,
          p.name === 'X-Scopes'
            ? fc.constantFrom('knowledge:read knowledge:write knowledge:admin', 'knowledge:read', 'nothing')
            : gen.arbitrary(p.schema),
        ]),
    ),
    { requiredKeys: [] },
  );
  const schema = bodySchema(op);
  const body = schema ? gen.arbitrary(schema) : fc.constant(undefined);
  return fc.record({ path, query, headers, body }).map(({ path: p, query: q, headers: h, body: b }) => ({
    method: op.method,
    path: op.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String(p[name]))),
    query: Object.fromEntries(Object.entries(q).map(([k, v]) => [k, String(v)])),
    headers: h as Record<string, string>,
    body: b,
  }));
}

/** Whether the request is valid against the document (generation is checked before sending). */
function invalidity(op: Operation, req: FuzzRequest): string | undefined {
  const schema = bodySchema(op);
  if (schema && req.body !== undefined) {
    const problem = validator.problem(schema, req.body);
    if (problem) return `body ${problem}`;
  }
  return undefined;
}

async function send(req: FuzzRequest, auth: string | null = token): Promise<HttpResponse> {
  const qs = new URLSearchParams(req.query).toString();
  const once = () =>
    stack.request(acme, `${req.path}${qs ? `?${qs}` : ''}`, {
      method: req.method.toUpperCase(),
      ...(auth ? { token: auth } : {}),
      headers: req.headers,
      ...(req.body !== undefined ? { body: req.body } : {}),
    });
  let res = await once();
  // A 503 with Retry-After is the documented answer while a dependency watch sees a back service
  // down, which a CI host saturated by parallel test files can make happen for a moment: the
  // request is sent once more after the wait, and a second 5xx is a finding as any other.
  if (res.status === 503 && res.headers['retry-after']) {
    await new Promise((r) => setTimeout(r, Math.min(2, Number(res.headers['retry-after']) || 1) * 1000));
    res = await once();
  }
  sent++;
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  return res;
}

function describeRequest(req: FuzzRequest): string {
  const qs = new URLSearchParams(req.query).toString();
  const body = req.body === undefined ? '' : ` ${JSON.stringify(req.body).slice(0, 300)}`;
  const headers = Object.keys(req.headers).length ? ` headers ${JSON.stringify(req.headers).slice(0, 200)}` : '';
  return `${req.method.toUpperCase()} ${req.path}${qs ? `?${qs}` : ''}${headers}${body}${req.mutation ? ` [${req.mutation}]` : ''}`;
}

// ---------------------------------------------------------------------------------------------
// Checks

function finding(check: string, op: Operation | string, res: HttpResponse, detail: string, req: FuzzRequest): void {
  const operation = typeof op === 'string' ? op : label(op);
  // One finding per check, operation, status and kind of detail: the list stays readable.
  const key = `${check}|${operation}|${res.status}|${detail.slice(0, 60)}`;
  if (findings.some((f) => `${f.check}|${f.operation}|${f.status}|${f.detail.slice(0, 60)}` === key)) return;
  findings.push({ check, operation, status: res.status, detail, request: describeRequest(req) });
}

/** The checks every answer passes: no 5xx, documented status, content type, headers and body. */
function conformance(op: Operation, req: FuzzRequest, res: HttpResponse): void {
  const body = res.text.slice(0, 200);
  if (res.status >= 500) return finding('not_a_server_error', op, res, body, req);
  const documented = op.op.responses?.[String(res.status)];
  if (!documented) {
    const listed = Object.keys(op.op.responses ?? {}).join(', ');
    return finding('status_code_conformance', op, res, `documented: ${listed}; body ${body}`, req);
  }
  for (const [name, h] of Object.entries<Doc>(documented.headers ?? {})) {
    const value = res.headers[name.toLowerCase()];
    if (value === undefined) {
      if (h.required) finding('response_headers_conformance', op, res, `missing ${name}`, req);
    } else {
      const problem = validator.problem(h.schema ?? {}, String(value));
      if (problem) finding('response_headers_conformance', op, res, `${name}: ${value}: ${problem}`, req);
    }
  }
  const content = documented.content?.['application/json'];
  if (!content) return;
  const type = String(res.headers['content-type'] ?? '');
  if (!/^application\/json\b/.test(type))
    return finding('content_type_conformance', op, res, `content-type ${type || 'missing'}`, req);
  const problem = validator.problem(content.schema, res.json);
  if (problem) finding('response_schema_conformance', op, res, `${problem}; body ${body}`, req);
}

async function positive(op: Operation, req: FuzzRequest): Promise<HttpResponse> {
  const res = await send(req);
  conformance(op, req, res);
  if (res.status < 500 && !POSITIVE_OK(res.status) && !describedRule(op, res))
    finding('positive_data_acceptance', op, res, `valid request refused: ${res.text.slice(0, 240)}`, req);
  return res;
}

async function negative(op: Operation, req: FuzzRequest): Promise<void> {
  const res = await send(req);
  conformance(op, req, res);
  if (res.status < 500 && !NEGATIVE_OK.includes(res.status))
    finding(
      'negative_data_rejection',
      op,
      res,
      `invalid request answered ${res.status}: ${res.text.slice(0, 160)}`,
      req,
    );
}

/** Requests that break one thing of a valid one: body, path, query or header. */
function negativeRequests(op: Operation, base: FuzzRequest): FuzzRequest[] {
  const out: FuzzRequest[] = [];
  const schema = bodySchema(op);
  if (schema) {
    for (const m of mutations(gen, schema, base.body)) {
      if (validator.problem(schema, m.value)) out.push({ ...base, body: m.value, mutation: `body ${m.what}` });
    }
    out.push({ ...base, body: undefined, mutation: 'no body' });
  }
  for (const p of params(op, 'path')) {
    for (const m of parameterMutations(gen, p.schema)) {
      const path = op.path.replace(/\{(\w+)\}/g, (whole, name: string) =>
        name === p.name ? encodeURIComponent(m.value) : base.path.split('/')[op.path.split('/').indexOf(whole)]!,
      );
      out.push({ ...base, path, mutation: `path ${p.name} ${m.what}` });
    }
  }
  for (const p of params(op, 'query')) {
    if (p.required) {
      const { [p.name]: _gone, ...query } = base.query;
      out.push({ ...base, query, mutation: `query ${p.name} left out` });
    }
    for (const m of parameterMutations(gen, p.schema))
      out.push({ ...base, query: { ...base.query, [p.name]: m.value }, mutation: `query ${p.name} ${m.what}` });
  }
  for (const p of params(op, 'header')) {
    for (const m of parameterMutations(gen, p.schema))
      if (!/[^\x20-\x7e]/.test(m.value))
        out.push({ ...base, headers: { ...base.headers, [p.name]: m.value }, mutation: `header ${p.name} ${m.what}` });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Phases

/** What each create adds to the pools. */
const CREATES: Record<string, keyof Pools> = {
  createCategory: 'category',
  createKnowledgeEntry: 'entry',
  createPersonalEntry: 'entry',
  createSite: 'site',
  upsertProduct: 'product',
};

/**
 * Rules JSON Schema cannot state, which the operation's description states in words: a valid
 * request that breaks one is a 422 the check accepts, as long as the description still says so.
 */
const DESCRIBED_RULES: { operationId: string; field: string; says: string }[] = [
  { operationId: 'searchSimilarProducts', field: 'anchor_weights', says: 'one weight per anchor' },
  { operationId: 'searchProducts', field: 'price_min', says: 'price_min must not exceed price_max' },
  { operationId: 'listKnowledgeEntries', field: 'cursor', says: 'any other cursor is a 422' },
  { operationId: 'listKnowledgeEntryVersions', field: 'cursor', says: 'any other cursor is a 422' },
  { operationId: 'listKnowledgeEntryTranslations', field: 'cursor', says: 'any other cursor is a 422' },
];

function describedRule(op: Operation, res: HttpResponse): boolean {
  if (res.status !== 422 || !Array.isArray(res.json?.detail)) return false;
  return res.json.detail.every((issue: { loc: unknown[] }) =>
    DESCRIBED_RULES.some(
      (r) =>
        r.operationId === op.operationId &&
        issue.loc[issue.loc.length - 1] === r.field &&
        String(op.op.description ?? '').includes(r.says),
    ),
  );
}

/** Creates first, reads next, then updates, deletes last: generated deletes of pool ids come late. */
function ordered(ops: Operation[]): Operation[] {
  const rank = (o: Operation) => ({ post: 0, get: 1, put: 2, delete: 3 })[o.method] ?? 4;
  return [...ops].sort((a, b) => rank(a) - rank(b));
}

test('when every operation gets valid and invalid data, then every answer is documented and right', async () => {
  const before = findings.length;
  const ops = ordered(operations(doc));
  expect(ops.length).toBeGreaterThanOrEqual(26);
  for (const op of ops) {
    const valid = sample(requestArbitrary(op), RUNS * 2)
      .filter((r) => !invalidity(op, r))
      .slice(0, RUNS);
    expect(valid.length).toBeGreaterThan(0);
    for (const req of valid) {
      const res = await positive(op, req);
      const kind = CREATES[op.operationId];
      if (res.status === 201 && kind && typeof res.json?.id === 'string') pools[kind].push(res.json.id);
    }
    const negatives = negativeRequests(op, valid[0]!);
    const picked = sample(
      fc.shuffledSubarray(negatives, {
        minLength: Math.min(RUNS, negatives.length),
        maxLength: Math.min(RUNS, negatives.length),
      }),
      1,
    )[0]!;
    for (const req of picked) await negative(op, req);
  }
  expect(findings.slice(before)).toEqual([]);
}, 600_000);

test('when a request has no token or a wrong one, then every operation answers 401 with WWW-Authenticate (ignored_auth)', async () => {
  const before = findings.length;
  for (const op of operations(doc)) {
    const [req] = sample(
      requestArbitrary(op).filter((r) => !invalidity(op, r)),
      1,
    );
    for (const auth of [null, 'kbt_not-a-token']) {
      const res = await send(req!, auth);
      conformance(op, req!, res);
      if (res.status !== 401)
        finding('ignored_auth', op, res, `expected 401 ${auth ? 'with a wrong token' : 'without a token'}`, req!);
    }
  }
  expect(findings.slice(before)).toEqual([]);
}, 300_000);

test('when a path gets a method it does not serve, then 405 with Allow naming exactly its methods (unsupported_method)', async () => {
  const before = findings.length;
  for (const [path, item] of Object.entries<Doc>(doc.paths)) {
    const declared = Object.keys(item);
    const concrete = path.replace(/\{\w+\}/g, () => '0d4c2f1e-7a3b-4c5d-8e9f-a0b1c2d3e4f5');
    const expected = new Set(declared.map((m) => m.toUpperCase()));
    for (const method of PROBED_METHODS.filter((m) => !declared.includes(m))) {
      const req: FuzzRequest = { method, path: concrete, query: {}, headers: {} };
      const res = await send(req);
      const allow = String(res.headers.allow ?? '');
      const advertised = new Set(
        allow
          .split(',')
          .map((m) => m.trim().toUpperCase())
          .filter((m) => m && m !== 'HEAD' && m !== 'OPTIONS'),
      );
      const same = advertised.size === expected.size && [...expected].every((m) => advertised.has(m));
      if (method === 'options') {
        if (res.status >= 300 || !same) finding('allow_header_conformance', path, res, `OPTIONS Allow "${allow}"`, req);
      } else if (res.status !== 405)
        finding('unsupported_method', path, res, `${method.toUpperCase()}: ${res.text.slice(0, 120)}`, req);
      else if (!same) finding('unsupported_method', path, res, `${method.toUpperCase()} Allow "${allow}"`, req);
    }
  }
  expect(findings.slice(before)).toEqual([]);
}, 120_000);

const FLOWS = [
  { create: 'createCategory', get: 'getCategory', update: 'updateCategory', remove: 'deleteCategory', after: [] },
  {
    create: 'createKnowledgeEntry',
    get: 'getKnowledgeEntry',
    update: 'updateKnowledgeEntry',
    remove: 'deleteKnowledgeEntry',
    after: ['listKnowledgeEntryVersions', 'listKnowledgeEntryTranslations', 'updateKnowledgeEntry'],
  },
  { create: 'createPersonalEntry', get: 'getKnowledgeEntry', remove: 'deleteKnowledgeEntry', after: [] },
  { create: 'createSite', get: 'getSite', update: 'updateSite', remove: 'deleteSite', after: ['assignSiteKnowledge'] },
  { create: 'upsertProduct', get: 'getProduct', remove: 'deleteProduct', after: [] },
];

test('when a resource is created, read, updated and deleted, then it is there until deleted, 404 after (use_after_free)', async () => {
  const before = findings.length;
  const byId = new Map(operations(doc).map((o) => [o.operationId, o]));
  const opOf = (id: string) => {
    const op = byId.get(id);
    if (!op) throw new Error(`no operation ${id}`);
    return op;
  };
  /** A valid request for `id` with the resource's own id in its path. */
  const aimed = (id: string, resource: string): FuzzRequest => {
    const op = opOf(id);
    const [req] = sample(
      requestArbitrary(op).filter((r) => !invalidity(op, r)),
      1,
    );
    return { ...req!, headers: {}, path: op.path.replace(/\{\w+\}/g, resource) };
  };
  // The first phase's generated deletes may have taken the pools' resources: fresh ones.
  const post = async (path: string, body: unknown) =>
    (await stack.request(acme, `/api/knowledge${path}`, { method: 'POST', token, body })).json;
  pools.category = [(await post('/categories', { name: 'Stateful' })).id];
  pools.site = [(await post('/sites', { slug: 'stateful', name: 'Stateful' })).id];
  pools.slug = ['stateful'];
  let completed = 0;
  for (const flow of FLOWS) {
    const create = opOf(flow.create);
    const creations = sample(
      requestArbitrary(create).filter((r) => !invalidity(create, r)),
      SEQUENCES * 6,
    ).map((r) => ({ ...r, headers: {} }));
    let done = 0;
    const refused: string[] = [];
    for (const req of creations) {
      if (done >= SEQUENCES) break;
      const made = await positive(create, req);
      if (made.status !== 201) {
        refused.push(`${made.status} ${made.text.slice(0, 80)}`);
        continue;
      }
      const id = made.json.id as string;
      const location = String(made.headers.location ?? '');
      if (!location.endsWith(`/${id}`))
        finding('response_headers_conformance', create, made, `Location "${location}" does not name ${id}`, req);
      const get = aimed(flow.get, id);
      const read = await positive(opOf(flow.get), get);
      if (read.status !== 200)
        finding('ensure_resource_availability', opOf(flow.get), read, `created with ${flow.create}, not readable`, get);
      if (flow.update) {
        const update = aimed(flow.update, id);
        await positive(opOf(flow.update), update);
      }
      const remove = aimed(flow.remove, id);
      const removed = await positive(opOf(flow.remove), remove);
      // A 409 the description names (the default site while others exist) leaves it in place.
      if (removed.status === 409) continue;
      if (removed.status !== 204) {
        finding(
          'stateful',
          opOf(flow.remove),
          removed,
          `delete of a fresh resource answered ${removed.status}`,
          remove,
        );
        continue;
      }
      for (const after of [flow.get, ...flow.after]) {
        const again = aimed(after, id);
        const res = await send(again);
        conformance(opOf(after), again, res);
        if (res.status !== 404 && !(res.status === 422 && after === 'assignSiteKnowledge'))
          finding('use_after_free', opOf(after), res, `after ${flow.remove} answered ${res.status}`, again);
      }
      done++;
    }
    if (done === 0)
      finding(
        'stateful',
        create,
        { status: 0 } as HttpResponse,
        `no generated create succeeded: ${refused.slice(0, 5).join(' | ')}`,
        creations[0]!,
      );
    completed += done;
  }
  expect(findings.slice(before)).toEqual([]);
  expect(completed).toBeGreaterThanOrEqual(FLOWS.length * SEQUENCES);
}, 300_000);
