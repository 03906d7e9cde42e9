/**
 * The admin CLI in the exact forms scripts rely on, run as a process (`npm run admin -- …`
 * runs this same entry point), against the run's real MongoDB.
 */
import { execFile, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import mongoose from 'mongoose';
import { similarityProto } from '@kb/platform';
import { startStack, uniqueId, type Stack } from '../support/stack';

const cli = path.resolve(__dirname, '../../tools/admin/dist/main.js');
let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

// Asynchronous: the services of the stack run in this process, and a synchronous spawn would
// stop their event loop (their health watches would then count live dependencies as down).
function admin(...args: string[]) {
  return adminWith({}, ...args);
}

function adminWith(env: NodeJS.ProcessEnv, ...args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string; lastLine: string }>((resolve) => {
    execFile(
      process.execPath,
      [cli, ...args],
      { env: { ...process.env, MONGODB_URI: stack.mongoUri, ...env }, encoding: 'utf8', timeout: 30_000 },
      (err, stdout, stderr) =>
        resolve({
          code: err ? (typeof err.code === 'number' ? err.code : 1) : 0,
          stdout,
          stderr,
          lastLine: stdout.trimEnd().split('\n').at(-1) ?? '',
        }),
    );
  });
}

describe('admin CLI', () => {
  const tenant = uniqueId('cli');

  test('when a tenant is created with a host, then that host addresses it', async () => {
    const host = `${tenant}.example.test`;
    const created = await admin('tenant', 'create', tenant, '--host', host);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(`Created tenant ${tenant}`);
    const token = (await admin('token', 'create', '--tenant', tenant, '--role', 'Viewer')).lastLine;
    const { httpRequest } = await import('../support/stack');
    const res = await httpRequest(stack.port, host, '/api/knowledge/categories', { token });
    expect(res.status).toBe(200);
  });

  test('when a tenant is created with a host under .localhost, then that host addresses it and its address has the port', async () => {
    const other = uniqueId('cli');
    const host = `${other}-shop.localhost`;
    const created = await adminWith({ PORT: String(stack.port) }, 'tenant', 'create', other, '--host', host);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(`Local address: http://${other}.localhost:${stack.port}/api/knowledge`);
    const token = (await admin('token', 'create', '--tenant', other, '--role', 'Viewer')).lastLine;
    const { httpRequest } = await import('../support/stack');
    const res = await httpRequest(stack.port, `${host}:${stack.port}`, '/api/knowledge/categories', { token });
    expect(res.status).toBe(200);
  });

  test('when a token is created, then the token alone is the last line of stdout and it works', async () => {
    const user = '5f0c9a7e-2b4d-4c6e-8f1a-3d5b7c9e1f20';
    const out = await admin(
      'token',
      'create',
      '--tenant',
      tenant,
      '--role',
      'Agent',
      '--user',
      user,
      '--scopes',
      'knowledge:read',
      '--name',
      'ci bot',
      '--expires-in',
      '30',
    );
    expect(out.code).toBe(0);
    expect(out.lastLine).toMatch(/^kbt_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    expect((await stack.request(tenant, '/api/knowledge/categories', { token: out.lastLine })).status).toBe(200);
    const write = await stack.request(tenant, '/api/knowledge/categories', {
      method: 'POST',
      token: out.lastLine,
      body: { name: 'x' },
    });
    expect(write.status).toBe(403); // only knowledge:read was granted
  });

  test('when a token is revoked by its id prefix, then it answers 401 afterwards', async () => {
    const token = (await admin('token', 'create', '--tenant', tenant, '--role', 'Admin')).lastLine;
    const id = token.split('_')[1] as string;
    const revoked = await admin('token', 'revoke', '--tenant', tenant, id.slice(0, 6));
    expect(revoked.code).toBe(0);
    expect((await stack.request(tenant, '/api/knowledge/categories', { token })).status).toBe(401);
  });

  test('when settings are changed, then they are validated, stored and shown', async () => {
    const out = await admin(
      'tenant',
      'settings',
      '--tenant',
      tenant,
      '--set',
      'workspaces_enabled=true',
      '--set',
      'variant_strategy=children_only',
      '--set',
      'hybrid_weights.description=0.7',
      '--set',
      'role_writable_types.Agent=knowledge,memory',
    );
    expect(out.code).toBe(0);
    const settings = JSON.parse(out.stdout);
    expect(settings).toMatchObject({
      workspaces_enabled: true,
      variant_strategy: 'children_only',
      hybrid_weights: { description: 0.7 },
      role_writable_types: { Agent: ['knowledge', 'memory'] },
    });
    const shown = JSON.parse((await admin('tenant', 'settings', '--tenant', tenant)).stdout);
    expect(shown).toEqual(settings);
  });

  test.each([
    [['tenant', 'create', 'Bad_Tenant'], /Invalid tenant id/],
    [['tenant', 'create'], /exactly one <tenant-id>/],
    [['token', 'create', '--tenant', 'nobody-here', '--role', 'Admin'], /does not exist/],
    [['token', 'create', '--tenant', '__T__', '--role', 'Boss'], /--role must be one of/],
    [['token', 'create', '--tenant', '__T__', '--role', 'Admin', '--user', 'not-a-uuid'], /--user must be a uuid/],
    [['token', 'create', '--tenant', '__T__', '--role', 'Admin', '--scopes', 'knowledge:everything'], /Unknown scope/],
    [
      ['token', 'create', '--tenant', '__T__', '--role', 'Admin', '--expires-in=-3'],
      /--expires-in must be a positive number/,
    ],
    [
      ['token', 'create', '--tenant', '__T__', '--role', 'Admin', '--expires-in', '0'],
      /--expires-in must be a positive number/,
    ],
    [['token', 'create', '--tenant', '__T__', '--role', 'Admin', '--colour', 'red'], /Unknown option/],
    [['token', 'revoke', '--tenant', '__T__', 'ffffffffffff'], /No token/],
    [['tenant', 'settings', '--tenant', '__T__', '--set', 'variant_strategy=sometimes'], /Invalid setting/],
    [['tenant', 'settings', '--tenant', '__T__', '--set', 'no_such_setting=1'], /Unknown setting/],
    [
      ['tenant', 'settings', '--tenant', '__T__', '--set', 'role_visibility_ceilings.Agent=personal'],
      /Invalid setting/,
    ],
    [['fly', 'away'], /Unknown command/],
  ])('when run with %j, then it fails with a clear message and a non-zero exit code', async (args, message) => {
    const out = await admin(...(args as string[]).map((a) => (a === '__T__' ? tenant : a)));
    expect(out.code).not.toBe(0);
    expect(out.stderr).toMatch(message);
    expect(out.stderr).not.toMatch(/\n\s+at /);
  });

  test('when the tenant already exists, then creating it again fails', async () => {
    const out = await admin('tenant', 'create', tenant);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/already exists/);
  });

  test(
    'when the tenant already exists and --if-missing is given (the ' +
      'chart bootstrap Job), then it succeeds and changes nothing',
    async () => {
      const db = await mongoose.createConnection(stack.mongoUri).asPromise();
      const stored = () => db.collection('tenants').findOne({ _id: tenant as never });
      const before = await stored();
      expect(before).not.toBeNull();
      const again = await admin(
        'tenant',
        'create',
        tenant,
        '--if-missing',
        '--name',
        'Other name',
        '--host',
        `other-${tenant}.example.test`,
      );
      expect(again.code).toBe(0);
      expect(again.stdout).toContain(`Tenant ${tenant} already exists; left unchanged`);
      expect(await stored()).toEqual(before);
      await db.close();
      const fresh = uniqueId('boot');
      const first = await admin('tenant', 'create', fresh, '--if-missing');
      expect(first.code).toBe(0);
      expect(first.stdout).toContain(`Created tenant ${fresh}`);
    },
  );

  test('when entries cannot be written into the new index, then `reindex entries` fails and the alias is not swapped', async () => {
    // A stand-in similarity service: it begins a reindex, then fails every write (not a refusal).
    const calls: string[] = [];
    const answer =
      (name: string, reply: Record<string, unknown> | null) => (_call: unknown, done: grpc.sendUnaryData<unknown>) => {
        calls.push(name);
        if (reply) done(null, reply);
        else done({ code: grpc.status.INTERNAL, details: 'Elasticsearch answered 500' });
      };
    const server = new grpc.Server();
    server.addService(similarityProto().kb.similarity.v1.SimilarityService.service, {
      BeginReindex: answer('BeginReindex', { index: 'entries-next', alias: 'entries' }),
      IndexEntries: answer('IndexEntries', null),
      FinishReindex: answer('FinishReindex', { index: 'entries-next', alias: 'entries', removed_indices: [] }),
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    try {
      const owner = uniqueId('reindex');
      const token = await stack.tenantWithToken(owner, 'Admin');
      const category = await stack.request(owner, '/api/knowledge/categories', {
        method: 'POST',
        token,
        body: { name: 'c' },
      });
      const entry = {
        title: 'Okapi',
        content: 'Okapis eat leaves.',
        category_id: category.json.id,
        visibility: 'internal',
      };
      expect(
        (await stack.request(owner, '/api/knowledge/knowledge-entries', { method: 'POST', token, body: entry })).status,
      ).toBe(201);
      await expect(stack.admin('reindex', 'entries', '--similarity', `127.0.0.1:${port}`)).rejects.toThrow(
        /entries could not be indexed .*the alias still points at the old index/,
      );
      expect(calls).toContain('IndexEntries');
      expect(calls).not.toContain('FinishReindex');
    } finally {
      server.forceShutdown();
    }
  });

  test('when MongoDB cannot be reached, then it says so and exits 1', () => {
    const result = spawnSync(process.execPath, [cli, 'tenant', 'create', 'x'], {
      env: { ...process.env, MONGODB_URI: 'mongodb://127.0.0.1:1/x' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/cannot reach MongoDB/);
  });
});
