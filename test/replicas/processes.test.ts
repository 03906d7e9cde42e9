/**
 * Two replicas of every service as real processes (the built `services/*\/dist/main.js`, started
 * by @kb/devstack's startServices as `npm start -- --replicas 2` does): each client is given the
 * list of both replicas' addresses and balances over them (round robin, keepalive, one retry of
 * a read on UNAVAILABLE: @kb/platform's grpc/balancing.ts). What a replica's death, freeze or
 * return does to the others, observed from outside: MongoDB, Elasticsearch, the gateway, the
 * processes' own log files.
 *
 * Settings made short for the test (every process gets them): keepalive pings every 1 s with a
 * 3 s timeout (a frozen replica's connection is dropped within ~4 s, less than a call's 10 s
 * deadline), connections closed at 3 s of age (clients reconnect), the indexers' interval 0.2 s,
 * and LOG_LEVEL debug (every served call is a `"msg":"call"` line in the replica's log file).
 * The claim lease (CLAIM_MS, 30 s) has no setting: the take-over test waits it out.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import * as path from 'node:path';
import mongoose from 'mongoose';
import { freePort, startServices, type RunningServices } from '@kb/devstack';
import { databaseUri, httpRequest, tenantWithAdminToken, uniqueId, type HttpResponse } from '../support/stack';
import { elasticsearchNode } from '../support/elasticsearch-node';

const db = uniqueId('kbtest');
const tenant = uniqueId('replicas');
const mongoUri = databaseUri(db);
const CLAIM_MS = 30_000;

let services: RunningServices | undefined;
let logDir: string;
let port: number;
let conn: mongoose.Connection;
let token: string;

const child = (name: string) => {
  const found = services?.children.find((c) => c.name === name);
  if (!found) throw new Error(`no process ${name}`);
  return found;
};
/** A signal to a replica's whole process group (its node process leads it). */
const signal = (name: string, sig: NodeJS.Signals) => {
  try {
    process.kill(-child(name).pgid, sig);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
};
const logOf = (name: string) => path.join(logDir, `${name}.log`);
const logSize = (name: string) => statSync(logOf(name)).size;
/** The log file of a replica from byte `from` on. */
const logSince = (name: string, from: number) => readFileSync(logOf(name)).subarray(from).toString('utf8');
/** The `"msg":"call"` lines (served gRPC calls, at debug) of `method` in a piece of log. */
const calls = (log: string, method: string) =>
  log.split('\n').filter((l) => l.includes('"msg":"call"') && l.includes(`"method":"${method}"`)).length;

const request = (p: string, init: Parameters<typeof httpRequest>[3] = {}) =>
  httpRequest(port, `${tenant}.localhost`, p, { token, ...init });

async function timed(call: () => Promise<HttpResponse>): Promise<HttpResponse & { ms: number }> {
  const started = Date.now();
  const res = await call();
  return { ...res, ms: Date.now() - started };
}

async function waitFor<T>(probe: () => Promise<T>, ok: (v: T) => boolean, ms: number, everyMs = 200): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await probe();
  while (!ok(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, everyMs));
    value = await probe();
  }
  return value;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Documents in the run's products index (every index behind its alias) of this tenant. */
async function productsInIndex(): Promise<number> {
  const url = elasticsearchNode();
  await fetch(`${url}/${db}-products-*/_refresh`, { method: 'POST' });
  const res = await fetch(`${url}/${db}-products-*/_count`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: { term: { tenant_id: tenant } } }),
  });
  return ((await res.json()) as { count?: number }).count ?? 0;
}

beforeAll(async () => {
  logDir = mkdtempSync(path.join(tmpdir(), 'kb-replicas-'));
  port = await freePort();
  services = await startServices({
    mongoUri,
    elasticsearchUrl: process.env.ELASTICSEARCH_URL as string,
    model: {
      dir: process.env.EMBEDDING_MODEL_DIR as string,
      name: process.env.EMBEDDING_MODEL_NAME as string,
      dims: Number(process.env.EMBEDDING_DIMS),
    },
    port,
    replicas: 2,
    logDir,
    env: {
      ELASTICSEARCH_INDEX_PREFIX: db,
      LOG_LEVEL: 'debug',
      INDEXER_INTERVAL_MS: '200',
      GRPC_KEEPALIVE_TIME_MS: '1000',
      // Not less: a replica busy with a bulk of 300 on a loaded 2-core host missed a 1 s ping
      // answer, and the gateway dropped its connection with the write in flight (503, written).
      GRPC_KEEPALIVE_TIMEOUT_MS: '3000',
      GRPC_MAX_CONNECTION_AGE_MS: '3000',
    },
  });
  // startServices waits for /readyz 200, which a gateway answers while a dependency is still
  // starting ("degraded"): wait for every check up ("ready"), the similarity replicas' indices made.
  for (const gateway of services.replicas.filter((r) => r.service === 'gateway')) {
    const ready = await waitFor(
      () => httpRequest(gateway.port, 'localhost', '/readyz').catch(() => undefined),
      (r) => r?.json?.status === 'ready',
      120_000,
    );
    expect(ready?.json?.status).toBe('ready');
  }
  conn = await mongoose.createConnection(mongoUri, { serverSelectionTimeoutMS: 5000 }).asPromise();
  token = await tenantWithAdminToken(conn, tenant);
  const site = await request('/api/knowledge/sites', { method: 'POST', body: { slug: 'shop', name: 'Shop' } });
  expect(site.status).toBe(201);
  const category = await request('/api/knowledge/categories', { method: 'POST', body: { name: 'c' } });
  expect(category.status).toBe(201);
}, 180_000);

afterAll(async () => {
  // A stopped process acts on SIGTERM only once it runs again.
  for (const c of services?.children ?? []) {
    try {
      process.kill(-c.pgid, 'SIGCONT');
    } catch {
      // gone already
    }
  }
  await services?.stop();
  await conn?.close();
  if (logDir && !process.env.KB_KEEP_REPLICA_LOGS) rmSync(logDir, { recursive: true, force: true });
  else if (logDir) process.stdout.write(`replica logs kept in ${logDir}\n`);
}, 60_000);

test(
  'when a catalog replica is killed (kill -9) in the middle of an indexing call, then its claims are ' +
    'taken over by the other replica once they lapse and every product ends indexed, none lost',
  async () => {
    const victim = 'catalog';
    const owner = new RegExp(`^${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${child(victim).pgid}:`);
    const products = conn.collection('products');
    const heldByVictim = () =>
      products.countDocuments({ 'index_claim.owner': owner, 'index_claim.until': { $gt: new Date() } });

    // Bulks of 300 (more than 100: answered without waiting for the embeddings, all queued for the
    // background indexers of both replicas), until the victim is caught holding claims: frozen
    // (SIGSTOP) the moment its claims are seen, so it cannot give them back, and if it still holds
    // some once frozen, killed.
    let written = 0;
    let caught = 0;
    let killedAt = 0;
    for (let round = 0; round < 3 && !caught; round++) {
      const body = {
        products: Array.from({ length: 300 }, (_, i) => ({
          external_id: `r${round}-p${i}`,
          title: `Oak stool ${round}-${i}`,
          description: `A stool of oak, number ${i} of round ${round}`,
          language: 'en',
        })),
      };
      // An upsert by external_id: sent again on a 503 (Retry-After), as a client would. (A write whose
      // connection the gateway dropped answers 503 though the replica wrote it.)
      let bulk = await request('/api/knowledge/products/bulk?site_id=shop', { method: 'POST', body });
      if (bulk.status === 503) {
        process.stdout.write(`bulk answered 503 (${bulk.text}); sent again\n`);
        bulk = await request('/api/knowledge/products/bulk?site_id=shop', { method: 'POST', body });
      }
      expect(bulk.status).toBe(200);
      written += 300;
      const deadline = Date.now() + 60_000;
      while (!caught && Date.now() < deadline) {
        if ((await products.countDocuments({ 'index_claim.owner': owner })) > 0) {
          signal(victim, 'SIGSTOP');
          caught = await heldByVictim();
          if (caught) {
            signal(victim, 'SIGKILL');
            killedAt = Date.now();
          } else signal(victim, 'SIGCONT');
        }
        if (!caught && (await products.countDocuments({ needs_index: true })) === 0) break; // all done without it
        await sleep(20);
      }
    }
    expect(caught).toBeGreaterThan(0);
    expect(
      await waitFor(
        async () => child(victim).exitReason(),
        (r) => r !== undefined,
        5_000,
      ),
    ).toBe('was ended by SIGKILL');
    const lapse = await products.find({ 'index_claim.owner': owner }).sort({ 'index_claim.until': -1 }).limit(1).next();
    const lapsesAt = (lapse?.index_claim as { until: Date } | undefined)?.until.getTime() ?? killedAt;
    process.stdout.write(
      `catalog (pid ${child(victim).pgid}) killed holding ${caught} claims of ${written} products; ` +
        `they lapse ${lapsesAt - killedAt} ms later\n`,
    );

    // Every product indexed, in MongoDB and in Elasticsearch, once the dead replica's claims have
    // lapsed (≤ 30 s) and the other replica's indexer has taken them.
    const state = async () => ({
      queued: await products.countDocuments({ needs_index: true }),
      claimedByDead: await products.countDocuments({ 'index_claim.owner': owner }),
      errors: await products.countDocuments({ index_error: { $exists: true } }),
      indexed: await productsInIndex(),
    });
    const done = (s: Awaited<ReturnType<typeof state>>) =>
      s.queued === 0 && s.claimedByDead === 0 && s.indexed === written;
    // Generous: on a loaded 2-core machine the survivor's calls may run out of time and wait for
    // their own claims to lapse (a call in doubt keeps them until its deadline) before the next try.
    const final = await waitFor(state, done, CLAIM_MS + 90_000, 500);
    const doneAt = Date.now();
    expect(final).toEqual({ queued: 0, claimedByDead: 0, errors: 0, indexed: written });
    expect(await products.countDocuments({})).toBe(written);
    // The dead replica's claims held until they lapsed: nobody took them earlier.
    expect(doneAt).toBeGreaterThanOrEqual(lapsesAt - 1_000);
    process.stdout.write(
      `all ${written} products indexed ${doneAt - killedAt} ms after the kill (${doneAt - lapsesAt} ms after the lapse)\n`,
    );
  },
  240_000,
);

test(
  'when a knowledge replica is frozen (SIGSTOP), then the gateway stays ready and every read ' +
    'answers 200, served by the other replica',
  async () => {
    const frozen = 'knowledge-2';
    const before = logSize('knowledge');
    signal(frozen, 'SIGSTOP');
    const frozenAt = Date.now();
    try {
      const reads: (HttpResponse & { ms: number })[] = [];
      for (let i = 0; i < 20; i++) reads.push(await timed(() => request('/api/knowledge/categories')));
      const ready = await httpRequest(port, 'localhost', '/readyz');
      process.stdout.write(
        `reads with ${frozen} frozen (ms): ${reads.map((r) => r.ms).join(', ')}; ` +
          `all in ${Date.now() - frozenAt} ms; /readyz ${ready.status} ${ready.json?.status}\n`,
      );
      // Until keepalive has dropped the frozen replica's connection (~4 s), the gateway's watch of
      // the knowledge service (one health probe at a time over the balanced channel) may see two
      // probes in a row time out on the frozen replica and count the whole service down for a
      // moment: a read then answers 503 with Retry-After at once, never a hang or another error.
      // After that every read answers 200 from the other replica.
      for (const r of reads) {
        expect([200, 503]).toContain(r.status);
        if (r.status === 503) expect(r.headers['retry-after']).toBeDefined();
        if (r.status === 200) expect(Array.isArray(r.json) && r.json.length === 1).toBe(true);
        expect(r.ms).toBeLessThan(8_000); // under the gateway's 10 s deadline: no read waits it out
      }
      const settled = await waitFor(
        async () => {
          const rs: HttpResponse[] = [];
          for (let i = 0; i < 20; i++) rs.push(await request('/api/knowledge/categories'));
          return rs;
        },
        (rs) => rs.every((r) => r.status === 200),
        10_000,
      );
      expect(settled.map((r) => r.status)).toEqual(Array(20).fill(200));
      expect(ready.status).toBe(200);
      expect((await httpRequest(port, 'localhost', '/readyz')).status).toBe(200);
      // The other replica served them (the frozen one cannot log anything).
      const served = reads.filter((r) => r.status === 200).length + 20;
      expect(calls(logSince('knowledge', before), 'ListCategories')).toBeGreaterThanOrEqual(served);
    } finally {
      signal(frozen, 'SIGCONT');
    }
  },
  60_000,
);

test(
  'when a knowledge replica stops and a new one starts on its address, then it is given calls again ' +
    'within a few connection ages',
  async () => {
    const replica = 'knowledge-2';
    await child(replica).stop();
    // Gone (refused connections): reads go on, on the other replica.
    for (let i = 0; i < 5; i++) expect((await request('/api/knowledge/categories')).status).toBe(200);
    const from = logSize(replica);
    const restarted = Date.now();
    await services!.restart(replica);
    const up = Date.now();
    const served = await waitFor(
      async () => {
        expect((await request('/api/knowledge/categories')).status).toBe(200);
        return calls(logSince(replica, from), 'ListCategories');
      },
      (n) => n > 0,
      30_000,
      100,
    );
    const servedAt = Date.now();
    process.stdout.write(
      `${replica} restarted in ${up - restarted} ms, served its first read ${servedAt - up} ms after it was up\n`,
    );
    expect(served).toBeGreaterThan(0);
    // Both replicas share the reads from then on.
    const [one, two] = [logSize('knowledge'), logSize(replica)];
    for (let i = 0; i < 10; i++) expect((await request('/api/knowledge/categories')).status).toBe(200);
    expect(calls(logSince('knowledge', one), 'ListCategories')).toBeGreaterThan(0);
    expect(calls(logSince(replica, two), 'ListCategories')).toBeGreaterThan(0);
  },
  90_000,
);
