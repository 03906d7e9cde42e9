/**
 * The back services behind the gateway, called directly over gRPC (the protos in protos/) as an
 * attacker inside the network would: with a forged caller and no, a wrong-key, an expired or a
 * misdirected caller assertion. Every such call is UNAUTHENTICATED and changes nothing; a caller
 * without a tenant needs the system credential; a reindex is the system credential's alone; a
 * single-tenant install refuses other tenants. The gateway's own path keeps working throughout.
 */
import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { SignJWT } from 'jose';
import {
  CALLER_ASSERTION_METADATA_KEY,
  SCOPES,
  callerSigner,
  catalogProto,
  knowledgeProto,
  similarityProto,
  type Caller,
} from '@kb/platform';
import { loadKnowledgeConfig, startKnowledgeServer, type KnowledgeServer } from '@kb/knowledge';
import { databaseUri, startStack, uniqueId, type Stack } from '../support/stack';
import { assertionMetadata } from '../support/service-auth';
import { elasticsearchNode } from '../support/elasticsearch-node';

let stack: Stack;
const acme = uniqueId('s2s');
const globex = uniqueId('s2s-other');
let admin: string;
let productId: string;
let indicesBefore: string[];
const clients: grpc.Client[] = [];

type Unary = (
  req: unknown,
  md: grpc.Metadata,
  opts: grpc.CallOptions,
  cb: (e: grpc.ServiceError | null, r?: unknown) => void,
) => void;
/** A raw grpc-js client of each back service, from the protos the services load. */
const connect = <C extends grpc.Client>(Ctor: new (a: string, c: grpc.ChannelCredentials) => C, address: string) => {
  const client = new Ctor(address, grpc.credentials.createInsecure());
  clients.push(client);
  return client as unknown as Record<string, Unary>;
};
let knowledge: Record<string, Unary>;
let catalog: Record<string, Unary>;
let similarity: Record<string, Unary>;

/** The call's status code and answer (OK: 0). */
const call = (client: Record<string, Unary>, method: string, request: unknown, metadata = new grpc.Metadata()) =>
  new Promise<{ code: grpc.status; details?: string; response?: unknown }>((resolve) =>
    (client[method] as Unary).call(client, request, metadata, { deadline: Date.now() + 10_000 }, (err, response) =>
      resolve(err ? { code: err.code, details: err.details } : { code: grpc.status.OK, response }),
    ),
  );

/** What an attacker puts in the request: the tenant's Admin with every scope. */
const forged = (tenant: string): Partial<Caller> => ({
  tenant_id: tenant,
  user_id: '00000000-0000-4000-8000-000000000001',
  role: 'Admin',
  scopes: [...SCOPES],
  request_id: 'forged',
});

const SERVICES = {
  knowledge: 'kb.knowledge.v1.KnowledgeService',
  catalog: 'kb.catalog.v1.CatalogService',
  similarity: 'kb.similarity.v1.SimilarityService',
} as const;
const pathOf = (service: keyof typeof SERVICES, method: string) => `/${SERVICES[service]}/${method}`;

/** An assertion in the wire format (server-auth.ts), with one thing wrong. */
async function badAssertion(
  service: keyof typeof SERVICES,
  method: string,
  caller: Partial<Caller>,
  wrong: 'key' | 'expired' | 'audience' | 'method' | 'alg-none',
): Promise<grpc.Metadata> {
  const now = Math.floor(Date.now() / 1000);
  const claims = { rpc: pathOf(service, wrong === 'method' ? 'ListCategories' : method), caller };
  let token: string;
  if (wrong === 'alg-none') {
    const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    token = `${part({ alg: 'none', typ: 'kb-caller+jwt', kid: 'service' })}.${part({
      ...claims,
      iss: 'knowledge-service',
      sub: 'gateway',
      aud: service,
      iat: now,
      exp: now + 60,
    })}.`;
  } else {
    const key = new TextEncoder().encode(
      wrong === 'key' ? randomBytes(32).toString('base64url') : (process.env.SERVICE_AUTH_SECRET as string),
    );
    token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'kb-caller+jwt', kid: 'service' })
      .setIssuer('knowledge-service')
      .setSubject('gateway')
      .setAudience(wrong === 'audience' ? (service === 'knowledge' ? 'catalog' : 'knowledge') : service)
      .setIssuedAt(wrong === 'expired' ? now - 600 : now)
      .setExpirationTime(wrong === 'expired' ? now - 540 : now + 60)
      .sign(key);
  }
  const metadata = new grpc.Metadata();
  metadata.set(CALLER_ASSERTION_METADATA_KEY, token);
  return metadata;
}

const categoryNames = async () =>
  (await stack.request(acme, '/api/knowledge/categories', { token: admin })).json.map((c: { name: string }) => c.name);
const siteSlugs = async () =>
  (await stack.request(acme, '/api/knowledge/sites', { token: admin })).json.map((s: { slug: string }) => s.slug);
const productFound = async () =>
  (
    await stack.request(acme, '/api/knowledge/search/products', {
      method: 'POST',
      token: admin,
      body: { query: 'lantern' },
    })
  ).json.products.some((p: { id: string }) => p.id === productId);
const indices = async () => {
  const res = await fetch(`${elasticsearchNode()}/_cat/indices/${stack.indexPrefix}*?format=json&h=index`);
  return ((await res.json()) as { index: string }[]).map((i) => i.index).sort();
};

beforeAll(async () => {
  stack = await startStack();
  admin = await stack.tenantWithToken(acme, 'Admin');
  await stack.tenantWithToken(globex, 'Admin');
  // The gateway's path, assertions and all.
  expect(
    (await stack.request(acme, '/api/knowledge/categories', { method: 'POST', token: admin, body: { name: 'Real' } }))
      .status,
  ).toBe(201);
  expect(
    (
      await stack.request(acme, '/api/knowledge/sites', {
        method: 'POST',
        token: admin,
        body: { slug: 'shop', name: 'S' },
      })
    ).status,
  ).toBe(201);
  const product = await stack.request(acme, '/api/knowledge/products?site_id=shop', {
    method: 'POST',
    token: admin,
    body: { external_id: 'p1', title: 'Storm lantern', description: 'A lantern for camping', language: 'en' },
  });
  expect(product.status).toBe(201);
  productId = product.json.id;
  indicesBefore = await indices();
  knowledge = connect(knowledgeProto().kb.knowledge.v1.KnowledgeService, stack.addresses.knowledge);
  catalog = connect(catalogProto().kb.catalog.v1.CatalogService, stack.addresses.catalog);
  similarity = connect(similarityProto().kb.similarity.v1.SimilarityService, stack.addresses.similarity);
});
afterAll(async () => {
  for (const c of clients) c.close();
  await stack?.stop();
});

/** The four writes the attack tried, each with the forged tenant Admin in the request. */
const attacks = [
  {
    service: 'knowledge',
    method: 'CreateCategory',
    request: () => ({ caller: forged(acme), name: 'Forged' }),
  },
  {
    service: 'catalog',
    method: 'CreateSite',
    request: () => ({ caller: forged(acme), slug: 'forged', name: 'Forged', language: 'en', config_json: '{}' }),
  },
  {
    service: 'similarity',
    method: 'DeleteProducts',
    request: () => ({ caller: forged(acme), documents: [{ id: productId, version: '999999999999' }] }),
  },
  {
    service: 'similarity',
    method: 'BeginReindex',
    request: () => ({ caller: forged(acme), kind: 'products' }),
  },
] as const;
const clientOf = (service: keyof typeof SERVICES) => ({ knowledge, catalog, similarity })[service];

describe('a call straight to a back service', () => {
  test.each(
    attacks.flatMap((a) =>
      (['none', 'key', 'expired', 'audience', 'method', 'alg-none'] as const).map((w) => ({ ...a, wrong: w })),
    ),
  )(
    'when $service $method comes with a forged caller and assertion "$wrong", then it is UNAUTHENTICATED',
    async ({ service, method, request, wrong }) => {
      const metadata =
        wrong === 'none' ? new grpc.Metadata() : await badAssertion(service, method, forged(acme), wrong);
      const res = await call(clientOf(service), method, request(), metadata);
      expect(res).toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    },
  );

  test('when every forged call has been refused, then nothing changed: no category, site or index, the product still found', async () => {
    expect(await categoryNames()).toEqual(['Real']);
    expect(await siteSlugs()).toEqual(['shop']);
    expect(await productFound()).toBe(true);
    expect(await indices()).toEqual(indicesBefore);
  });

  test("when the request's caller names another tenant than the valid assertion, then the assertion's caller acts", async () => {
    const metadata = await assertionMetadata(
      { ...forged(acme), request_id: 'r1' },
      'knowledge',
      pathOf('knowledge', 'CreateCategory'),
    );
    const res = await call(knowledge, 'CreateCategory', { caller: forged(globex), name: 'Signed' }, metadata);
    expect(res.code).toBe(grpc.status.OK);
    expect((res.response as { tenant_id: string }).tenant_id).toBe(acme);
    expect(await categoryNames()).toContain('Signed');
  });
});

describe('a caller without a tenant', () => {
  test('when DeleteProducts comes with the service key and an empty tenant, then it is UNAUTHENTICATED and the product stays', async () => {
    // The gateway's key alone (test/support's signer would use the system key for a tenantless caller).
    const serviceOnly = new grpc.Metadata();
    serviceOnly.set(
      CALLER_ASSERTION_METADATA_KEY,
      await callerSigner(
        { secret: process.env.SERVICE_AUTH_SECRET },
        'test',
      )({
        caller: { tenant_id: '' },
        audience: 'similarity',
        method: pathOf('similarity', 'DeleteProducts'),
      }),
    );
    const request = { caller: {}, documents: [{ id: productId, version: '999999999999' }] };
    expect(await call(similarity, 'DeleteProducts', request, serviceOnly)).toMatchObject({
      code: grpc.status.UNAUTHENTICATED,
    });
    expect(await productFound()).toBe(true);
    // With the system credential, a tenantless call is a system caller's (DescribeModel: it changes nothing).
    const describe = await assertionMetadata({}, 'similarity', pathOf('similarity', 'DescribeModel'));
    expect((await call(similarity, 'DescribeModel', { caller: {} }, describe)).code).toBe(grpc.status.OK);
  });

  test("when BeginReindex comes with a tenant Admin's valid assertion, then it is PERMISSION_DENIED and no index is made", async () => {
    const before = await indices();
    const metadata = await assertionMetadata(forged(acme), 'similarity', pathOf('similarity', 'BeginReindex'));
    expect(await call(similarity, 'BeginReindex', { caller: forged(acme), kind: 'products' }, metadata)).toMatchObject({
      code: grpc.status.PERMISSION_DENIED,
    });
    expect(await indices()).toEqual(before);
  });

  test('when the admin CLI reindexes (the system credential), then the search index is rebuilt and the product still found', async () => {
    const { code } = await stack.catalogAdmin('reindex', 'products');
    expect(code).toBe(0);
    expect(await productFound()).toBe(true);
  });
});

describe('a single-tenant install', () => {
  let single: KnowledgeServer;
  let client: Record<string, Unary>;
  beforeAll(async () => {
    single = await startKnowledgeServer(
      loadKnowledgeConfig({
        ...process.env,
        GRPC_HOST: '127.0.0.1',
        KNOWLEDGE_GRPC_PORT: '0',
        MONGODB_URI: databaseUri(uniqueId('kbsingle')),
        SIMILARITY_GRPC_ADDR: stack.addresses.similarity,
        TENANT_MODE: 'single',
        TENANT_ID: acme,
      }),
      pino({ level: 'silent' }),
    );
    client = connect(knowledgeProto().kb.knowledge.v1.KnowledgeService, `127.0.0.1:${single.port}`);
  });
  afterAll(async () => {
    await single?.stop();
  });

  test("when a valid assertion names another tenant, then it is PERMISSION_DENIED; the install's own tenant is served", async () => {
    const path = pathOf('knowledge', 'ListCategories');
    const other = await call(client, 'ListCategories', {}, await assertionMetadata(forged(globex), 'knowledge', path));
    expect(other.code).toBe(grpc.status.PERMISSION_DENIED);
    let own = await call(client, 'ListCategories', {}, await assertionMetadata(forged(acme), 'knowledge', path));
    // MongoDB connects in the background: UNAVAILABLE until it has.
    for (let i = 0; i < 100 && own.code === grpc.status.UNAVAILABLE; i++) {
      await new Promise((r) => setTimeout(r, 100));
      own = await call(client, 'ListCategories', {}, await assertionMetadata(forged(acme), 'knowledge', path));
    }
    expect(own.code).toBe(grpc.status.OK);
  });
});
