/**
 * `npm start` as a new user meets it: the stack comes up, prints a working token and two
 * example calls, the admin CLI finds the same backends with no flags, a second start and a
 * busy port are refused clearly, and SIGTERM stops everything it started.
 *
 * It runs the same entry point `npm start` runs (after its build step), pointed at this test
 * run's backends through MONGODB_URI / ELASTICSEARCH_URL, with its own cache folder for run
 * state so it never meets a developer's own `npm start`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { freePort } from '@kb/devstack';
import { httpRequest, uniqueId } from '../support/stack';

const root = path.resolve(__dirname, '../..');
const startJs = path.join(root, 'tools/devstack/dist/start.js');
const adminJs = path.join(root, 'tools/admin/dist/main.js');

const cacheDir = mkdtempSync(path.join(tmpdir(), 'kb-start-test-'));
const mongoUri = (() => {
  const url = new URL(process.env.MONGODB_URI as string);
  url.pathname = `/${uniqueId('kbstart')}`;
  return url.toString();
})();
const baseEnv = () => ({ ...process.env, MONGODB_URI: mongoUri, KB_CACHE_DIR: cacheDir });

function start(port: number): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  let out = '';
  const child = spawn(process.execPath, [startJs], {
    env: { ...baseEnv(), PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

async function waitFor(predicate: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function admin(env: NodeJS.ProcessEnv, ...args: string[]) {
  return spawnSync(process.execPath, [adminJs, ...args], { env, encoding: 'utf8', timeout: 30_000 });
}

afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

test('when npm start runs, then the printed token and curl calls work, the admin CLI finds it, and SIGTERM stops everything', async () => {
  const port = await freePort();
  const run = start(port);
  try {
    await waitFor(() => run.output().includes('Press Ctrl-C to stop.') || run.child.exitCode !== null, 90_000);
    const out = run.output();
    expect(out).toContain(`http://localhost:${port}/api/knowledge`);

    // The two printed curl calls, made as printed (Host localhost is the demo tenant).
    const token = /^(kbt_\S+)$/m.exec(out)?.[1] as string;
    expect(token).toBeDefined();
    const calls = [...out.matchAll(/curl -s (http:\/\/localhost:\d+(\S+)) -H "Authorization: Bearer (\S+)"/g)];
    expect(calls).toHaveLength(2);
    for (const [, , pathPart, bearer] of calls) {
      expect(bearer).toBe(token);
      const res = await httpRequest(port, `localhost:${port}`, pathPart as string, { token });
      expect(res.status).toBe(200);
    }
    const one = await httpRequest(port, 'localhost', calls[1]![2] as string, { token });
    expect(one.json).toMatchObject({ tenant_id: 'demo', name: 'Getting started' });
    expect((await httpRequest(port, 'localhost', calls[0]![2] as string)).status).toBe(401);

    // The admin CLI of the same checkout reaches the same backends with no extra flags.
    const env = { ...baseEnv() } as NodeJS.ProcessEnv;
    delete env.MONGODB_URI;
    const created = admin(env, 'token', 'create', '--tenant', 'demo', '--role', 'Viewer');
    expect(created.stderr).toBe('');
    expect(created.status).toBe(0);
    const viewer = created.stdout.trimEnd().split('\n').at(-1) as string;
    expect((await httpRequest(port, 'localhost', '/api/knowledge/categories', { token: viewer })).status).toBe(200);

    // A second start of the same checkout is refused and says where the first one runs.
    const second = start(await freePort());
    expect(await second.exited).toBe(1);
    expect(second.output()).toMatch(/already running \(pid \d+\)/);

    // SIGTERM: everything it started is gone within a few seconds.
    const pids = [...out.matchAll(/service started \(pid (\d+)\)/g)].map((m) => Number(m[1]));
    expect(pids).toHaveLength(4);
    const stopping = Date.now();
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(Date.now() - stopping).toBeLessThan(10_000);
    await waitFor(() => pids.every((pid) => !alive(pid)), 5000);

    const after = admin(env, 'token', 'create', '--tenant', 'demo', '--role', 'Viewer');
    expect(after.status).toBe(2);
    expect(after.stderr).toMatch(/no running stack/);
  } finally {
    if (run.child.exitCode === null) run.child.kill('SIGKILL');
  }
}, 150_000);

test('when the port is taken, then npm start says so and exits non-zero', async () => {
  const blocker = createServer();
  const port = await new Promise<number>((resolve) =>
    blocker.listen(0, '127.0.0.1', () => resolve((blocker.address() as { port: number }).port)),
  );
  try {
    const run = start(port);
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(new RegExp(`Port ${port} .* already in use`));
  } finally {
    blocker.close();
  }
}, 60_000);
