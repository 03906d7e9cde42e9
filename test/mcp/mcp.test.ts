/**
 * The MCP endpoint as an assistant meets it: the official SDK client over Streamable HTTP against
 * the real stack (MongoDB server, Elasticsearch, embedding model). Every tool answers what REST
 * answers the same caller, refusals are tool results with REST's body, the 401 names the
 * protected-resource metadata, and nothing reaches further than REST: another tenant's token,
 * a read-only token and a Viewer are each held where REST holds them.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startStack, uniqueId, type Stack } from '../support/stack';
import { hostFetch } from '../support/http';

const MCP = '/api/knowledge/mcp';
const ENTRIES = '/api/knowledge/knowledge-entries';
const CLIENT_NAME = 'kb-test-assistant';
const TOOL_NAMES = [
  'search_knowledge',
  'get_knowledge_entry',
  'list_categories',
  'search_products',
  'find_similar_products',
  'get_product',
  'list_sites',
  'save_personal_note',
];

let stack: Stack;
const tenant = uniqueId('mcp');
const other = uniqueId('mcpother');
let admin: string;
let readOnly: string;
let viewer: string;
let otherAdmin: string;
let otherAdminOfSameTenant: string;
let category: string;
let siteId: string;
const entries: Record<string, { id: string; version: number }> = {};
const products: Record<string, string> = {};
const open: Client[] = [];

const FACT = 'Parcels to the North Sea islands travel by ferry and arrive two working days later than on the mainland.';

function filler(topic: string, sections: number): string {
  const out: string[] = [];
  for (let s = 1; s <= sections; s++) {
    out.push(`## ${topic} section ${s}`);
    out.push(
      `The ${topic.toLowerCase()} team keeps the ledger for week ${s} up to date, hands over open tasks in writing ` +
        'and restocks the brochure stand. Team leads review the rota on Mondays.',
    );
  }
  return out.join('\n\n');
}

async function connect(token: string | undefined, host = `${tenant}.localhost`, name = CLIENT_NAME): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`http://${host}${MCP}`), {
    fetch: hostFetch(stack.port, host),
    requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
  });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  open.push(client);
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;
const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;
const errorOf = (r: CallToolResult) => {
  expect(r.isError).toBe(true);
  return JSON.parse(textOf(r)) as { status: number; detail: unknown };
};
const rest = (path: string, token: string, init: { method?: string; body?: unknown } = {}) =>
  stack.request(tenant, path, { token, ...init });

async function createEntry(key: string, body: Record<string, unknown>): Promise<void> {
  const res = await rest(ENTRIES, admin, {
    method: 'POST',
    body: { category_id: category, visibility: 'internal', language: 'en', ...body },
  });
  expect(res.status).toBe(201);
  entries[key] = { id: res.json.id, version: res.json.version };
  await stack.entryIndexed(tenant, res.json.id, admin);
}

beforeAll(async () => {
  stack = await startStack({ env: { INDEXER_INTERVAL_MS: '200' } });
  admin = await stack.tenantWithToken(tenant, 'Admin');
  readOnly = await stack.token(tenant, 'Admin', ['--scopes', 'knowledge:read']);
  viewer = await stack.token(tenant, 'Viewer');
  otherAdmin = await stack.tenantWithToken(other, 'Admin');
  otherAdminOfSameTenant = await stack.token(tenant, 'Admin', ['--user', '5b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e']);
  category = (await rest('/api/knowledge/categories', admin, { method: 'POST', body: { name: 'Shipping' } })).json.id;
  await rest('/api/knowledge/categories', admin, { method: 'POST', body: { name: 'Personal notes' } });
  await createEntry('handbook', {
    title: 'Courier handbook',
    content: `# Courier handbook\n\n${filler('Courier', 10)}\n\n## Islands\n\n${FACT}\n\n${filler('Dispatch', 3)}`,
    visibility: 'public',
    tags: ['couriers'],
  });
  await createEntry('secret', {
    title: 'Island courier contract terms',
    content: 'The ferry courier contract for the islands is renegotiated every March; rates are confidential.',
    visibility: 'restricted',
  });
  await createEntry('skill', {
    type: 'skill',
    title: 'Refund a damaged parcel',
    content: '1. Ask for a photo of the damage.\n2. Refund the order in the shop backend.',
    metadata: { trigger_description: 'When a customer reports a parcel that arrived damaged' },
    visibility: 'public',
  });
  await createEntry('restrictedSkill', {
    type: 'skill',
    title: 'Override a courier invoice',
    content: 'Only for supervisors: open the courier portal and dispute the invoice.',
    metadata: { trigger_description: 'When a courier invoice is wrong' },
    visibility: 'restricted',
  });
  const site = await rest('/api/knowledge/sites', admin, { method: 'POST', body: { slug: 'shop', name: 'Shop' } });
  expect(site.status).toBe(201);
  siteId = site.json.id;
  const catalogue = [
    {
      external_id: 'rain',
      title: 'Waterproof rain jacket',
      description: 'Breathable waterproof shell for hiking in rain',
    },
    {
      external_id: 'storm',
      title: 'Storm shell jacket',
      description: 'Waterproof hiking jacket for wind and heavy rain',
    },
    { external_id: 'espresso', title: 'Espresso machine', description: 'Espresso machine with milk frother' },
  ];
  const bulk = await rest('/api/knowledge/products/bulk?site_id=shop', admin, {
    method: 'POST',
    body: { products: catalogue.map((p) => ({ language: 'en', price_current: 99.5, ...p })) },
  });
  expect(bulk.status).toBe(200);
  catalogue.forEach((p, i) => (products[p.external_id] = bulk.json.results[i].id));
});

afterAll(async () => {
  await Promise.all(open.map((c) => c.close().catch(() => undefined)));
  await stack?.stop();
});

describe('the door', () => {
  test('when a request has no valid token, then it is 401 naming the protected-resource metadata, which names the scopes', async () => {
    for (const token of [undefined, 'kbt_not-a-token']) {
      const res = await stack.request(tenant, MCP, {
        method: 'POST',
        ...(token ? { token } : {}),
        headers: { Accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      });
      expect(res.status).toBe(401);
      const challenge = String(res.headers['www-authenticate']);
      const match = /^Bearer .*resource_metadata="([^"]+)"/.exec(challenge);
      expect(match).not.toBeNull();
      const url = new URL(match![1]!);
      expect(url.pathname).toBe(`/.well-known/oauth-protected-resource${MCP}`);
      const metadata = await stack.request(tenant, url.pathname);
      expect(metadata.status).toBe(200);
      expect(metadata.json).toMatchObject({
        resource: `${url.origin}${MCP}`,
        scopes_supported: ['knowledge:read', 'knowledge:write', 'knowledge:admin'],
        bearer_methods_supported: ['header'],
      });
      expect(metadata.json.authorization_servers).toBeUndefined(); // this tenant trusts no OAuth issuer
    }
    await expect(connect(undefined)).rejects.toMatchObject({ code: 401 });
  });

  test('when a tenant trusts an OAuth issuer, then its metadata names it as the authorization server', async () => {
    const oauthTenant = uniqueId('mcpoauth');
    await stack.admin('tenant', 'create', oauthTenant);
    await stack.admin(
      'tenant',
      'settings',
      '--tenant',
      oauthTenant,
      '--set',
      'oauth.issuer=https://login.example.test/',
      '--set',
      'oauth.jwks_url=https://login.example.test/jwks.json',
      '--set',
      'oauth.audience=knowledge',
    );
    const res = await stack.request(oauthTenant, `/.well-known/oauth-protected-resource${MCP}`);
    expect(res.json.authorization_servers).toEqual(['https://login.example.test/']);
  });

  test("when another tenant's token is used at this tenant's address, then it is refused as an unknown token is", async () => {
    await expect(connect(otherAdmin)).rejects.toMatchObject({ code: 401 });
  });

  test('when a client connects, then it gets the eight tools, each with an input and an output schema', async () => {
    const client = await connect(admin);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
      expect(t.description!.length).toBeGreaterThan(80);
    }
    const search = tools.find((t) => t.name === 'search_knowledge')!;
    expect(Object.keys(search.inputSchema.properties ?? {}).sort()).toEqual(
      [
        'category_id',
        'language',
        'limit',
        'min_relevance',
        'passages',
        'query',
        'site_id',
        'tags',
        'types',
        'updated_after',
      ].sort(),
    );
    expect(search.inputSchema.required).toEqual(['query']);
    expect(client.getServerVersion()?.name).toBe('knowledge-service');
    // The client, having listed the tools, checks every structured result against its output schema.
    for (const [name, args] of [
      ['search_knowledge', { query: 'ferry islands' }],
      ['get_knowledge_entry', { id: entries.skill!.id }],
      ['list_categories', {}],
      ['search_products', { query: 'jacket' }],
      ['find_similar_products', { product_ids: [products.rain] }],
      ['get_product', { id: products.rain }],
      ['list_sites', {}],
    ] as const) {
      const result = await call(client, name, args);
      expect({ name, isError: result.isError ?? false }).toEqual({ name, isError: false });
    }
  });

  test('when GET or DELETE reach the endpoint, then they are 405 naming POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await stack.request(tenant, MCP, {
        method,
        token: admin,
        headers: { Accept: 'text/event-stream' },
      });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('POST');
    }
  });

  test('when a session id is used with another token, or is forged, then it is 404 and nothing runs', async () => {
    const init = await stack.request(tenant, MCP, {
      method: 'POST',
      token: admin,
      headers: { Accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
      },
    });
    expect(init.status).toBe(200);
    const session = String(init.headers['mcp-session-id']);
    expect(session).toMatch(/^[\x21-\x7e]+$/);
    const list = (token: string, id: string) =>
      stack.request(tenant, MCP, {
        method: 'POST',
        token,
        headers: { Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': id },
        body: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      });
    expect((await list(admin, session)).status).toBe(200);
    expect((await list(viewer, session)).status).toBe(404);
    expect((await list(admin, `${session.slice(0, -2)}xx`)).status).toBe(404);
  });
});

describe('knowledge tools', () => {
  test('when the assistant asks a question, then search_knowledge gives what REST search gives, with the answering passage', async () => {
    const client = await connect(admin);
    const question = 'how much longer does delivery to the islands take';
    const result = await call(client, 'search_knowledge', { query: question, limit: 5 });
    expect(result.isError).toBeFalsy();
    const hits = (
      result.structuredContent as { hits: { entry: { id: string; version: number }; passages: { text: string }[] }[] }
    ).hits;
    expect(hits[0]!.entry).toMatchObject(entries.handbook!);
    expect(hits[0]!.passages.some((p) => p.text.includes('arrive two working days later'))).toBe(true);
    const viaRest = await rest('/api/knowledge/search/entries', admin, {
      method: 'POST',
      body: { query: question, limit: 5, include_content: false },
    });
    expect(hits).toEqual(viaRest.json);
    expect(textOf(result)).toContain(`entry ${entries.handbook!.id}, version ${entries.handbook!.version}`);
    expect(textOf(result)).toContain('arrive two working days later');
  });

  test('when the answer lies at the end of a long passage, then the text an assistant reads still carries it', async () => {
    const desk =
      'The repair desk on the ground floor takes in bicycles, tents and stoves from Monday to Saturday. ' +
      'Bring the receipt if the item is under warranty, and describe the fault on the form at the counter. ' +
      'Small jobs such as a puncture or a loose brake cable are usually done the same afternoon, ' +
      'while larger jobs wait for parts from the manufacturer and can take two to three weeks. ' +
      'We call or text you when the item is ready, and you pay when you collect it. ';
    const fact = 'Bicycles left at the repair desk are kept for ninety days after we call, then recycled.';
    const paragraph = `${desk}${desk.replace('The repair desk', 'Our repair desk')}${fact}`;
    expect(paragraph.length).toBeGreaterThan(900);
    expect(paragraph.length).toBeLessThan(1150);
    await createEntry('repairs', {
      title: 'Repair desk',
      content: `## Repair desk\n\n${paragraph}`,
      visibility: 'public',
    });
    const client = await connect(admin);
    const result = await call(client, 'search_knowledge', {
      query: 'how long do you store a bike that nobody picked up from repair',
      limit: 3,
    });
    const hits = (result.structuredContent as { hits: { entry: { id: string }; passages: { text: string }[] }[] }).hits;
    expect(hits[0]!.entry.id).toBe(entries.repairs!.id);
    expect(hits[0]!.passages[0]!.text).toContain(fact);
    expect(textOf(result)).toContain(fact);
  });

  test('when an assistant reads around a passage, then get_knowledge_entry gives that part of the content and says which', async () => {
    const client = await connect(admin);
    const search = await call(client, 'search_knowledge', {
      query: 'how much longer does delivery to the islands take',
    });
    const hit = (
      search.structuredContent as { hits: { entry: { id: string }; passages: { start: number; end: number }[] }[] }
    ).hits[0]!;
    expect(hit.entry.id).toBe(entries.handbook!.id);
    const passage = hit.passages[0]!;
    const whole = (await rest(`${ENTRIES}/${entries.handbook!.id}`, admin)).json;
    const start = Math.max(0, passage.start - 200);
    const end = passage.end + 200;
    const part = await call(client, 'get_knowledge_entry', { id: entries.handbook!.id, start, end });
    expect(part.structuredContent).toEqual({
      ...whole,
      content: whole.content.slice(start, end),
      content_range: { start, end, length: whole.content.length },
    });
    expect(textOf(part)).toContain(`characters ${start}-${end} of ${whole.content.length}`);
    expect(textOf(part)).toContain(FACT);
    expect(textOf(part).length).toBeLessThan(whole.content.length);
    // Past the end: clamped, and said so; the whole entry without offsets is REST's, untouched.
    const tail = await call(client, 'get_knowledge_entry', {
      id: entries.handbook!.id,
      start: whole.content.length - 10,
      end: 10 ** 9,
    });
    expect((tail.structuredContent as { content_range: unknown }).content_range).toEqual({
      start: whole.content.length - 10,
      end: whole.content.length,
      length: whole.content.length,
    });
    const empty = await call(client, 'get_knowledge_entry', { id: entries.handbook!.id, start: 10 ** 9 });
    expect(empty.isError ?? false).toBe(false);
    expect(empty.structuredContent).toMatchObject({ content: '', content_range: { start: whole.content.length } });
    expect((await call(client, 'get_knowledge_entry', { id: entries.handbook!.id })).structuredContent).toEqual(whole);
    const backwards = errorOf(
      await call(client, 'get_knowledge_entry', { id: entries.handbook!.id, start: 50, end: 10 }),
    );
    expect(backwards.status).toBe(422);
    expect(errorOf(await call(client, 'get_knowledge_entry', { id: entries.handbook!.id, start: -1 })).status).toBe(
      422,
    );
  });

  test('when nothing answers and min_relevance is 0.5, then the result is an empty list said in words', async () => {
    const client = await connect(admin);
    const result = await call(client, 'search_knowledge', {
      query: 'what is the boiling point of liquid nitrogen in kelvin',
      min_relevance: 0.5,
    });
    expect(result.structuredContent).toEqual({ hits: [] });
    expect(textOf(result)).toMatch(/nothing/i);
  });

  test('when an assistant serves one shop, then site_id, tags, updated_after and passages narrow search_knowledge as in REST', async () => {
    const client = await connect(admin);
    const question = 'ferry to the islands';
    const idsOf = (r: CallToolResult) =>
      (r.structuredContent as { hits: { entry: { id: string } }[] }).hits.map((h) => h.entry.id);
    const everywhere = idsOf(await call(client, 'search_knowledge', { query: question, limit: 10 }));
    expect(everywhere).toEqual(expect.arrayContaining([entries.handbook!.id, entries.secret!.id]));
    // Only the handbook is assigned to the shop, and only it carries the tag.
    const assigned = await rest(`/api/knowledge/sites/${siteId}/knowledge`, admin, {
      method: 'PUT',
      body: { entry_ids: [entries.handbook!.id] },
    });
    expect(assigned.status).toBe(200);
    await stack.entryIndexed(tenant, entries.handbook!.id, admin);
    // Entries and passages as REST gives them; scores may move a little between the two calls
    // (BM25 statistics change when Elasticsearch merges away the handbook's previous version).
    const shape = (hits: { entry: { id: string; version: number }; passages: { start: number; end: number }[] }[]) =>
      hits.map((h) => ({
        id: h.entry.id,
        version: h.entry.version,
        passages: h.passages.map((p) => [p.start, p.end]),
      }));
    for (const narrowing of [{ site_id: 'shop' }, { site_id: siteId }, { tags: ['couriers', 'unused'] }]) {
      const result = await call(client, 'search_knowledge', { query: question, limit: 10, ...narrowing });
      expect({ narrowing, ids: idsOf(result) }).toEqual({ narrowing, ids: [entries.handbook!.id] });
      const viaRest = await rest('/api/knowledge/search/entries', admin, {
        method: 'POST',
        body: { query: question, limit: 10, ...narrowing, include_content: false },
      });
      expect(shape((result.structuredContent as { hits: Parameters<typeof shape>[0] }).hits)).toEqual(
        shape(viaRest.json),
      );
    }
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect(idsOf(await call(client, 'search_knowledge', { query: question, updated_after: future }))).toEqual([]);
    const one = await call(client, 'search_knowledge', { query: question, site_id: 'shop', passages: 1 });
    expect((one.structuredContent as { hits: { passages: unknown[] }[] }).hits[0]!.passages).toHaveLength(1);
    const unknownSite = await call(client, 'search_knowledge', { query: question, site_id: 'no-such-shop' });
    const unknownViaRest = await rest('/api/knowledge/search/entries', admin, {
      method: 'POST',
      body: { query: question, site_id: 'no-such-shop' },
    });
    expect(unknownViaRest.status).toBe(404);
    expect(errorOf(unknownSite)).toEqual({ status: 404, ...unknownViaRest.json });
    expect(errorOf(await call(client, 'search_knowledge', { query: question, passages: 6 })).status).toBe(422);
  });

  test('when arguments are malformed, then the result is an error with the issues REST names, and no protocol error', async () => {
    const client = await connect(admin);
    const tooMany = errorOf(await call(client, 'search_knowledge', { query: 'ferry', limit: 500 }));
    expect(tooMany.status).toBe(422);
    const viaRest = await rest('/api/knowledge/search/entries', admin, {
      method: 'POST',
      body: { query: 'ferry', limit: 500 },
    });
    const msgs = (d: unknown) => (d as { msg: string }[]).map((i) => i.msg);
    expect(msgs(tooMany.detail)).toEqual(msgs(viaRest.json.detail));
    const missing = errorOf(await call(client, 'search_knowledge', {}));
    expect(JSON.stringify(missing.detail)).toMatch(/query/);
    const extra = errorOf(await call(client, 'get_knowledge_entry', { id: entries.handbook!.id, content: 'x' }));
    expect(extra.status).toBe(422);
    expect(errorOf(await call(client, 'get_knowledge_entry', { id: 'not-a-uuid' })).status).toBe(422);
  });

  test('when an entry id is unknown or of another tenant, then get_knowledge_entry is the 404 REST gives', async () => {
    const client = await connect(admin);
    const unknown = '7b2f3f0e-1111-4c8d-9e0f-1a2b3c4d5e6f';
    const result = errorOf(await call(client, 'get_knowledge_entry', { id: unknown }));
    const viaRest = await rest(`${ENTRIES}/${unknown}`, admin);
    expect(result).toEqual({ status: viaRest.status, ...viaRest.json });
    const foreign = await connect(otherAdmin, `${other}.localhost`);
    expect(errorOf(await call(foreign, 'get_knowledge_entry', { id: entries.handbook!.id })).status).toBe(404);
  });

  test('when a Viewer searches and reads, then restricted entries stay out exactly as in REST', async () => {
    const client = await connect(viewer);
    const result = await call(client, 'search_knowledge', { query: 'island ferry courier contract', limit: 10 });
    const ids = (result.structuredContent as { hits: { entry: { id: string } }[] }).hits.map((h) => h.entry.id);
    expect(ids).toContain(entries.handbook!.id);
    expect(ids).not.toContain(entries.secret!.id);
    expect(errorOf(await call(client, 'get_knowledge_entry', { id: entries.secret!.id })).status).toBe(404);
    const full = await call(client, 'get_knowledge_entry', { id: entries.handbook!.id });
    expect(full.structuredContent).toEqual((await rest(`${ENTRIES}/${entries.handbook!.id}`, viewer)).json);
  });

  test('when categories are listed, then they are the ones REST lists', async () => {
    const client = await connect(admin);
    const result = await call(client, 'list_categories', {});
    expect(result.structuredContent).toEqual({ categories: (await rest('/api/knowledge/categories', admin)).json });
  });
});

describe('the skill index and skills', () => {
  test('when the skill index is read, then it is the entry REST lists, as the caller may see it', async () => {
    const adminClient = await connect(admin);
    const viewerClient = await connect(viewer);
    const { resources } = await adminClient.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['knowledge://skill-index']);
    const read = async (client: Client) =>
      JSON.parse(
        ((await client.readResource({ uri: 'knowledge://skill-index' })).contents[0] as { text: string }).text,
      );
    const asAdmin = await read(adminClient);
    expect(asAdmin).toEqual((await rest(`${ENTRIES}?type=skill_index`, admin)).json[0]);
    expect(asAdmin.content).toContain('Override a courier invoice');
    const asViewer = await read(viewerClient);
    expect(asViewer.content).toContain('Refund a damaged parcel');
    expect(asViewer.content).not.toContain('Override a courier invoice');
  });

  test('when prompts are listed, then each skill the caller may use is one, described by its trigger', async () => {
    const viewerClient = await connect(viewer);
    const { prompts } = await viewerClient.listPrompts();
    expect(prompts).toEqual([
      expect.objectContaining({
        name: 'refund-a-damaged-parcel',
        description: 'When a customer reports a parcel that arrived damaged',
      }),
    ]);
    const prompt = await viewerClient.getPrompt({
      name: 'refund-a-damaged-parcel',
      arguments: { request: 'Order 42' },
    });
    const text = (prompt.messages[0]!.content as { text: string }).text;
    expect(text).toContain('Ask for a photo of the damage');
    expect(text).toContain('Order 42');
    await expect(viewerClient.getPrompt({ name: 'override-a-courier-invoice' })).rejects.toThrow(/Unknown prompt/);
  });
});

describe('catalogue tools', () => {
  test('when products are searched, found similar and read, then the answers are those of REST', async () => {
    const client = await connect(admin);
    const found = await call(client, 'search_products', { query: 'waterproof jacket', site_id: 'shop', limit: 5 });
    const viaRest = await rest('/api/knowledge/search/products', admin, {
      method: 'POST',
      body: { query: 'waterproof jacket', site_id: 'shop', limit: 5 },
    });
    expect(found.structuredContent).toEqual(viaRest.json);
    const similar = await call(client, 'find_similar_products', { product_ids: [products.rain], limit: 2 });
    const similarIds = (similar.structuredContent as { products: { id: string }[] }).products.map((p) => p.id);
    expect(similarIds[0]).toBe(products.storm);
    expect(similarIds).not.toContain(products.rain);
    // What the assistant already showed stays out, and the answer is REST's.
    const args = { limit: 2, language: 'en', exclude_product_ids: [products.storm!] };
    const more = await call(client, 'find_similar_products', { product_ids: [products.rain], ...args });
    const moreViaRest = await rest('/api/knowledge/search/similar', admin, {
      method: 'POST',
      body: { anchor_product_ids: [products.rain], ...args },
    });
    expect(more.structuredContent).toEqual(moreViaRest.json);
    expect((moreViaRest.json.products as { id: string }[]).map((p) => p.id)).toEqual([products.espresso]);
    const product = await call(client, 'get_product', { id: products.rain });
    expect(product.structuredContent).toEqual((await rest(`/api/knowledge/products/${products.rain}`, admin)).json);
    expect(textOf(product)).toContain('Waterproof rain jacket');
    const bad = errorOf(await call(client, 'search_products', { query: 'jacket', limit: 0 }));
    expect(bad.status).toBe(422);
  });

  test('when the shops are listed, then they are the sites REST lists, each named in the text with its slug', async () => {
    const client = await connect(readOnly);
    const result = await call(client, 'list_sites', {});
    const viaRest = await rest('/api/knowledge/sites', readOnly);
    expect(result.structuredContent).toEqual({ sites: viaRest.json });
    expect(viaRest.json).toEqual([expect.objectContaining({ id: siteId, slug: 'shop' })]);
    expect(textOf(result)).toContain(`slug shop`);
    expect(errorOf(await call(client, 'list_sites', { slug: 'shop' })).status).toBe(422);
  });
});

describe('writing through MCP', () => {
  test("when a note is saved, then it is the caller's personal note, and its history names the MCP client", async () => {
    const client = await connect(admin);
    const result = await call(client, 'save_personal_note', {
      title: 'Customer prefers phone calls',
      content: 'Call before 10:00.',
      tags: ['preference'],
    });
    expect(result.isError).toBeFalsy();
    const note = result.structuredContent as { id: string; visibility: string; version: number; tags: string[] };
    expect(note).toMatchObject({ visibility: 'personal', version: 1, tags: ['preference'] });
    const versions = await rest(`${ENTRIES}/${note.id}/versions`, admin);
    expect(versions.status).toBe(200);
    expect(versions.json[0]).toMatchObject({ audit_source: 'mcp', client_id: CLIENT_NAME });
    // Only its owner sees it.
    expect((await rest(`${ENTRIES}/${note.id}`, otherAdminOfSameTenant)).status).toBe(404);
  });

  test('when a read-only token saves a note, then it is the 403 REST gives and nothing is written', async () => {
    const before = (await rest(`${ENTRIES}?visibility=personal`, readOnly)).json.length;
    const client = await connect(readOnly);
    const result = errorOf(await call(client, 'save_personal_note', { title: 'x', content: 'y' }));
    const viaRest = await rest(`${ENTRIES}/personal`, readOnly, {
      method: 'POST',
      body: { title: 'x', content: 'y', category_id: category },
    });
    expect(result).toEqual({ status: viaRest.status, ...viaRest.json });
    expect(result.status).toBe(403);
    expect((await rest(`${ENTRIES}?visibility=personal`, readOnly)).json.length).toBe(before);
  });
});
