/**
 * The gateway's answer when a back service misbehaves: a call that outlives its deadline is a
 * 504, an internal failure is a 500 whose body never carries the failure's message or stack.
 * The knowledge service here is a stand-in gRPC server (a fault injector for the gateway's
 * error mapping; no data store is involved), so the failures can be forced.
 */
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { knowledgeProto } from '@kb/platform';
import { connectBackends, loadGatewayConfig, startGateway, type GatewayServer, type Backends } from '@kb/gateway';
import { httpRequest } from '../support/stack';

const TOKEN = 'kbt_abcdefabcdef_secret';
const DEADLINE_MS = 300;

let server: grpc.Server;
let gateway: GatewayServer;
let backends: Backends;

beforeAll(async () => {
  server = new grpc.Server();
  const service = knowledgeProto().kb.knowledge.v1.KnowledgeService.service;
  server.addService(service, {
    ResolveTenant: (_call: unknown, cb: grpc.sendUnaryData<unknown>) =>
      cb(null, { id: 'faulty', name: 'faulty', hosts: [], settings: {}, created_at: new Date().toISOString() }),
    AuthenticateApiToken: (_call: unknown, cb: grpc.sendUnaryData<unknown>) =>
      cb(null, {
        token_id: 't1',
        user_id: '',
        role: 'Admin',
        scopes: ['knowledge:read', 'knowledge:write'],
        workspace_ids: [],
        name: 't',
      }),
    // Slower than the gateway's deadline.
    ListCategories: (_call: unknown, cb: grpc.sendUnaryData<unknown>) =>
      setTimeout(() => cb(null, { categories: [] }), DEADLINE_MS * 5),
    // An unexpected failure inside the service, with a message that must not reach the client.
    GetCategory: (_call: unknown, cb: grpc.sendUnaryData<unknown>) => {
      const err = new Error('TypeError: secret internals at /srv/knowledge/src/domain/x.ts:12');
      cb({
        code: grpc.status.INTERNAL,
        details: `${err.message}\n${err.stack}`,
        name: 'Error',
        message: err.message,
        metadata: new grpc.Metadata(),
      });
    },
  } as unknown as grpc.UntypedServiceImplementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  const config = loadGatewayConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    TENANT_MODE: 'host',
    GRPC_DEADLINE_MS: String(DEADLINE_MS),
    KNOWLEDGE_GRPC_ADDR: `127.0.0.1:${port}`,
    SERVICE_AUTH_SECRET: process.env.SERVICE_AUTH_SECRET,
  });
  backends = connectBackends(config);
  gateway = await startGateway(config, backends, pino({ level: 'silent' }));
});

afterAll(async () => {
  await gateway?.stop();
  backends?.close();
  server?.forceShutdown();
});

test('when a back service does not answer within the deadline, then the gateway answers 504 in time', async () => {
  const started = Date.now();
  const res = await httpRequest(gateway.port, 'faulty.localhost', '/api/knowledge/categories', { token: TOKEN });
  expect(res.status).toBe(504);
  expect(res.json).toEqual({ detail: 'The knowledge service did not answer in time' });
  expect(res.headers['x-request-id']).toBeDefined();
  expect(Date.now() - started).toBeLessThan(DEADLINE_MS * 4);
});

test('when a back service fails internally, then the answer is a 500 without its message or stack', async () => {
  const res = await httpRequest(
    gateway.port,
    'faulty.localhost',
    '/api/knowledge/categories/0b6f3a3e-8e0c-4a39-9c55-2d1f0f6f1c11',
    {
      token: TOKEN,
    },
  );
  expect(res.status).toBe(500);
  expect(res.json).toEqual({ detail: 'Internal server error' });
  expect(res.text).not.toMatch(/secret|internals|\.ts:|\n\s+at /);
  expect(res.headers['x-request-id']).toBeDefined();
});
