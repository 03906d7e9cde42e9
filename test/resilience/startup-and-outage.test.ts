/**
 * Failure at the edges: a wrong environment stops a service at start naming the variable;
 * unreachable backends leave the services up and ready, /readyz naming what is down, and requests
 * answered 503 with Retry-After (never a hang or a stack trace).
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { freePort } from '@kb/devstack';
import { grpcHealth } from '../support/containers';
import { httpRequest, startServices, startStack, type Services } from '../support/stack';

const root = path.resolve(__dirname, '../..');
// Valid service secrets, so that each case's message is about its own variable.
const SECRETS = { SERVICE_AUTH_SECRET: 'a'.repeat(40), SERVICE_SYSTEM_SECRET: 'b'.repeat(40) };
const runService = (name: string, env: Record<string, string>) =>
  spawnSync(process.execPath, [path.join(root, 'services', name, 'dist', 'main.js')], {
    env: { PATH: process.env.PATH ?? '', ...SECRETS, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });

describe('start-up configuration', () => {
  test.each([
    ['knowledge', {}, 'MONGODB_URI'],
    ['knowledge', { MONGODB_URI: 'postgres://nope' }, 'MONGODB_URI'],
    ['catalog', { MONGODB_URI: 'mongodb://127.0.0.1:1/x', CATALOG_GRPC_PORT: 'many' }, 'CATALOG_GRPC_PORT'],
    ['similarity', { EMBEDDING_MODEL_DIR: '/tmp' }, 'ELASTICSEARCH_URL'],
    ['similarity', { ELASTICSEARCH_URL: 'http://127.0.0.1:1' }, 'EMBEDDING_MODEL_DIR'],
    ['gateway', { PORT: 'eighty' }, 'PORT'],
    ['gateway', { TENANT_MODE: 'single' }, 'TENANT_ID'],
    ['gateway', { TENANT_MODE: 'sometimes' }, 'TENANT_MODE'],
  ])('when %s starts with %j, then it exits with a message naming %s', (name, env, variable) => {
    const result = runService(name, env as Record<string, string>);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(variable);
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });
});

describe('backends not reachable', () => {
  let services: Services;
  let gatewayPort: number;

  beforeAll(async () => {
    // Addresses where nothing listens: the services must still start.
    services = await startServices({
      MONGODB_URI: `mongodb://127.0.0.1:${await freePort()}/kb?serverSelectionTimeoutMS=1000`,
      ELASTICSEARCH_URL: `http://127.0.0.1:${await freePort()}`,
      GRPC_DEADLINE_MS: '8000',
    });
    gatewayPort = services.gatewayPort;
  });
  afterAll(async () => {
    await services?.stop();
  });

  test('when MongoDB and Elasticsearch are down, then /readyz is 200 (the gateway can serve) and names each dependency down', async () => {
    const res = await httpRequest(gatewayPort, 'x.localhost', '/readyz');
    // A shared dependency down never takes the gateways out of their Service: requests that
    // need it answer 503 themselves (below); /readyz says "degraded" and names it.
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('degraded');
    expect(res.json.degraded).toEqual(
      expect.arrayContaining(['catalog.mongodb', 'knowledge.mongodb', 'similarity.elasticsearch']),
    );
    expect(res.json.checks).toMatchObject({
      knowledge: 'up',
      'knowledge.mongodb': 'down',
      'catalog.mongodb': 'down',
      'similarity.elasticsearch': 'down',
      'similarity.embedder': 'up',
    });
    expect(res.json.detail).toContain('knowledge.mongodb down');
  });

  test(
    'when MongoDB and Elasticsearch are down, then each back service is ready and live ' +
      '(neither probe follows a shared dependency) and its dependency entry says NOT_SERVING',
    async () => {
      const dependencyOf = { knowledge: 'mongodb', catalog: 'mongodb', similarity: 'elasticsearch' } as const;
      for (const name of ['knowledge', 'catalog', 'similarity'] as const) {
        const address = services.addresses[name];
        expect([
          name,
          await grpcHealth(address),
          await grpcHealth(address, 'liveness'),
          await grpcHealth(address, `dependency:${dependencyOf[name]}`),
        ]).toEqual([name, 'SERVING', 'SERVING', 'NOT_SERVING']);
      }
    },
  );

  test('when MongoDB is down, then an API request is answered 503 with Retry-After within the deadline', async () => {
    const started = Date.now();
    const res = await httpRequest(gatewayPort, 'acme.localhost', '/api/knowledge/categories', {
      token: 'kbt_abcdefabcdef_secret',
    });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json).toEqual({ detail: 'MongoDB is unavailable' });
    expect(Date.now() - started).toBeLessThan(8000);
  });
});

describe('a back service stopped', () => {
  test('when the knowledge service is down, then requests get 503 naming it and /readyz says unreachable', async () => {
    const stack = await startStack();
    try {
      const token = await stack.tenantWithToken('down-test');
      expect((await stack.request('down-test', '/api/knowledge/categories', { token })).status).toBe(200);
      await stack.stopService('knowledge');
      const res = await stack.request('other-tenant', '/api/knowledge/categories', { token });
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json).toEqual({ detail: 'The knowledge service is unavailable' });
      const ready = await stack.request('down-test', '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.json.status).toBe('degraded');
      expect(ready.json.degraded).toEqual(['knowledge', 'knowledge.mongodb']);
      expect(ready.json.checks.knowledge).toBe('unreachable');
    } finally {
      await stack.stop();
    }
  });
});
