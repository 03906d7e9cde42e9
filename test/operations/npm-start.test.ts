/**
 * `npm start` as a new user meets it: the stack comes up with the demo data, prints a working
 * token and example calls that answer from that data, the admin CLI finds the same backends with
 * no flags, a second start and a busy port are refused clearly, SIGTERM stops everything it
 * started, and the next start finds the demo data in place and creates nothing.
 *
 * It runs the same entry point `npm start` runs (after its build step), pointed at this test
 * run's backends through MONGODB_URI / ELASTICSEARCH_URL, with its own cache folder for run
 * state so it never meets a developer's own `npm start`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MONGO_JAVA_SERVER_VERSION, cacheDir as sharedCacheDir, freePort } from '@kb/devstack';
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
// Its own database and index prefix: the demo tenant it seeds meets no other run's on the same backends.
const indexPrefix = new URL(mongoUri).pathname.slice(1);
const baseEnv = () => ({
  ...process.env,
  MONGODB_URI: mongoUri,
  ELASTICSEARCH_INDEX_PREFIX: indexPrefix,
  KB_CACHE_DIR: cacheDir,
});

function start(
  port: number,
  env: NodeJS.ProcessEnv = baseEnv(),
  args: string[] = [],
): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  let out = '';
  const child = spawn(process.execPath, [startJs, ...args], {
    env: { ...env, PORT: String(port) },
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

/** The example calls the banner prints: URL path, bearer token and JSON body (when it has one). */
function printedCalls(out: string): { path: string; token: string; body?: unknown }[] {
  return [...out.matchAll(/curl -s http:\/\/localhost:\d+(\S+) -H "Authorization: Bearer (\S+)"(.*)$/gm)].map(
    ([, path, token, rest]) => {
      const body = /-d '(.*)'/.exec(rest as string)?.[1];
      return { path: path as string, token: token as string, ...(body ? { body: JSON.parse(body) as unknown } : {}) };
    },
  );
}

test(
  'when npm start runs, then the demo data is there, the printed token and calls answer from it, the admin CLI finds it, ' +
    'SIGTERM stops everything, and the next start creates nothing',
  async () => {
    const port = await freePort();
    const run = start(port);
    try {
      await waitFor(() => run.output().includes('Press Ctrl-C to stop.') || run.child.exitCode !== null, 300_000);
      const out = run.output();
      expect(out).toContain(`http://localhost:${port}/api/knowledge`);
      expect(out).toMatch(
        /demo data: created 10 categories, 54 entries, 3 personal notes, 1 site, 206 products in [\d.]+ s/,
      );
      process.stdout.write(`${/demo data: created .*/.exec(out)?.[0]}\n`);

      // The printed calls, made as printed (Host localhost is the demo tenant).
      const token = /^(kbt_\S+)$/m.exec(out)?.[1] as string;
      expect(token).toBeDefined();
      const calls = printedCalls(out);
      expect(calls.map((c) => c.path)).toEqual([
        '/api/knowledge/search/entries',
        '/api/knowledge/search/similar',
        '/api/knowledge/mcp',
        '/api/knowledge/categories',
      ]);
      expect(calls.every((c) => c.token === token)).toBe(true);
      const made = async (i: number) => {
        const { path: p, body } = calls[i]!;
        return httpRequest(port, `localhost:${port}`, p, { token, ...(body ? { method: 'POST', body } : {}) });
      };
      const search = await made(0);
      expect(search.status).toBe(200);
      expect(search.json[0].entry.title).toBe('Returns, exchanges and refunds');
      expect(search.json[0].passages[0].text).toContain('tried-outdoors promise');
      const similar = await made(1);
      expect(similar.status).toBe(200);
      expect(similar.json.products.length).toBe(5);
      expect(similar.json.products[0].external_id).toMatch(/^aurora-2-/);
      // The MCP line, with the Accept header it prints: the seven tools.
      const mcp = await httpRequest(port, `localhost:${port}`, calls[2]!.path, {
        token,
        method: 'POST',
        body: calls[2]!.body,
        headers: { Accept: 'application/json, text/event-stream' },
      });
      expect(mcp.status).toBe(200);
      expect(mcp.json.result.tools.map((t: { name: string }) => t.name)).toContain('search_knowledge');
      const categories = await made(3);
      expect(categories.status).toBe(200);
      expect(categories.json.map((c: { name: string }) => c.name)).toContain('Getting started');
      expect((await httpRequest(port, 'localhost', calls[3]!.path)).status).toBe(401);

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

    // The next start: the demo data is in place, nothing is created, and the new token (the same
    // demo user) still sees the demo user's personal notes.
    const again = start(await freePort());
    try {
      await waitFor(() => again.output().includes('Press Ctrl-C to stop.') || again.child.exitCode !== null, 120_000);
      const out = again.output();
      expect(out).toMatch(/demo data: in place, nothing to create \([\d.]+ s\)/);
      process.stdout.write(`${/demo data: in place.*/.exec(out)?.[0]}\n`);
      const port2 = Number(/http:\/\/localhost:(\d+)\/api\/knowledge/.exec(out)?.[1]);
      const token = /^(kbt_\S+)$/m.exec(out)?.[1] as string;
      const list = await httpRequest(port2, 'localhost', '/api/knowledge/knowledge-entries?limit=500', { token });
      expect(list.json.filter((e: { visibility: string }) => e.visibility === 'personal')).toHaveLength(3);
      again.child.kill('SIGTERM');
      expect(await again.exited).toBe(0);
    } finally {
      if (again.child.exitCode === null) again.child.kill('SIGKILL');
    }
  },
  600_000,
);

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

describe('supervision', () => {
  // npm start runs its own MongoDB-compatible server here (no MONGODB_URI), so that killing it
  // is a backend npm start started; Elasticsearch stays the run's. The server's jars and the
  // model come from the run's cache (linked), its data lives in this test's cache folder.
  const ownCache = mkdtempSync(path.join(tmpdir(), 'kb-supervise-test-'));
  const shared = sharedCacheDir();
  for (const name of [`mongo-java-server-${MONGO_JAVA_SERVER_VERSION}`, 'models'])
    symlinkSync(path.join(shared, name), path.join(ownCache, name));
  afterAll(() => rmSync(ownCache, { recursive: true, force: true }));

  const pidsIn = (out: string, pattern: RegExp) => [...out.matchAll(pattern)].map((m) => Number(m[1]));

  test(
    'when a service is killed with -9, then npm start restarts it and it answers; when its MongoDB is killed, ' +
      'it comes back with the data; Ctrl-C (SIGINT) then stops everything it started',
    async () => {
      const port = await freePort();
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        ELASTICSEARCH_INDEX_PREFIX: uniqueId('kbstart'),
        KB_CACHE_DIR: ownCache,
      };
      delete env.MONGODB_URI;
      // Without the demo data (the flag a user would pass): this test is about supervision.
      const run = start(port, env, ['--no-demo']);
      try {
        await waitFor(() => run.output().includes('Press Ctrl-C to stop.') || run.child.exitCode !== null, 150_000);
        expect(run.output()).not.toMatch(/\[start\] demo data/);
        expect(run.output()).toContain('Try (no demo data: --no-demo or KB_DEMO_DATA=0)');
        const token = /^(kbt_\S+)$/m.exec(run.output())?.[1] as string;
        expect(token).toBeDefined();
        const categories = () => httpRequest(port, 'localhost', '/api/knowledge/categories', { token });
        expect((await categories()).status).toBe(200);

        // kill -9 of a back service: restarted, said so, and the API answers again.
        const knowledgePid = pidsIn(run.output(), /knowledge service started \(pid (\d+)\)/g)[0] as number;
        const killed = Date.now();
        process.kill(knowledgePid, 'SIGKILL');
        await waitFor(() => /the knowledge service restarted \(pid \d+\)/.test(run.output()), 60_000);
        expect(run.output()).toMatch(/the knowledge service was ended by SIGKILL; restarting in 1 s/);
        let answer = await categories();
        while (answer.status !== 200 && Date.now() - killed < 30_000) {
          await new Promise((r) => setTimeout(r, 250));
          answer = await categories();
        }
        expect(answer.status).toBe(200);
        expect(answer.json.map((c: { name: string }) => c.name)).toContain('Getting started');
        expect(run.child.exitCode).toBeNull();
        process.stdout.write(`knowledge service back ${Date.now() - killed} ms after kill -9\n`);

        // kill -9 of the MongoDB server npm start started: restarted on the same port, same data.
        const mongoPid = pidsIn(run.output(), /MongoDB-compatible server ready on \S+ \(pid (\d+)\)/g)[0] as number;
        expect(mongoPid).toBeGreaterThan(0);
        const mongoKilled = Date.now();
        process.kill(-mongoPid, 'SIGKILL');
        await waitFor(() => /The MongoDB-compatible server restarted \(pid \d+\)/.test(run.output()), 90_000);
        expect(run.output()).toMatch(/The MongoDB-compatible server was ended by SIGKILL; restarting in 1 s/);
        answer = await categories();
        while (answer.status !== 200 && Date.now() - mongoKilled < 60_000) {
          await new Promise((r) => setTimeout(r, 250));
          answer = await categories();
        }
        expect(answer.status).toBe(200);
        expect(answer.json.map((c: { name: string }) => c.name)).toContain('Getting started');
        process.stdout.write(`MongoDB back and served ${Date.now() - mongoKilled} ms after kill -9\n`);

        // Ctrl-C: every process it started, first and restarted, is gone.
        const out = run.output();
        const pids = [
          ...pidsIn(out, /service started \(pid (\d+)\)/g),
          ...pidsIn(out, /restarted \(pid (\d+)\)/g),
          ...pidsIn(out, /ready on \S+ \(pid (\d+)\)/g),
        ];
        expect(pids.length).toBe(4 + 2 + 1);
        run.child.kill('SIGINT');
        expect(await run.exited).toBe(0);
        await waitFor(() => pids.every((pid) => !alive(pid)), 10_000);
        expect(run.output()).toMatch(/stopped\.\n/);
      } finally {
        if (run.child.exitCode === null) run.child.kill('SIGKILL');
      }
    },
    300_000,
  );
});
