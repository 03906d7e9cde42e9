/**
 * One Elasticsearch node of three lost under load: the stack's indices, created with no setting
 * given, carry a replica on a cluster of three nodes and are green; `kill -9` of the process group
 * of the node holding the products primary, while searches and writes go through the gateway,
 * leaves searches answering (at least 90% in the first 20 s, every one after), every write
 * acknowledged meanwhile searchable afterwards, and the gateway's /readyz 200 throughout.
 *
 * The cluster is this file's own (three local nodes, @kb/devstack's startElasticsearchCluster, as
 * `npm start -- --es-nodes 3` runs it): the shared backends of the other test files are never
 * touched. The services run in-process (test/support/stack.ts) with ELASTICSEARCH_URL listing the
 * three nodes. It prints what it measured (answered share, latencies).
 */
import { ensureArtifacts, startElasticsearchCluster, type LocalCluster } from '@kb/devstack';
import { startStack, uniqueId, type HttpResponse, type Stack } from '../support/stack';

const tenant = uniqueId('nodeloss');
const LOAD_BEFORE_MS = 8_000;
const LOAD_AFTER_MS = 35_000;
const FIRST_WINDOW_MS = 20_000;
const QUERIES = ['warm sleeping bag', 'light tent for two', 'trail running shoe', 'headlamp', 'rain jacket'];

let cluster: LocalCluster;
let stack: Stack;
let token: string;
/** Node URLs still alive (the killed node's is removed). */
let alive: string[] = [];

const log = (msg: string) => process.stdout.write(`[es-node-loss] ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const request = (path: string, init: Parameters<Stack['request']>[2] = {}) =>
  stack.request(tenant, path, { token, ...init });
/** An Elasticsearch answer, from a node still alive. */
const es = async (path: string, init: RequestInit = {}): Promise<any> =>
  (await fetch(`${alive[0]}${path}`, { ...init, headers: { 'content-type': 'application/json' } })).json();

interface Sample {
  at: number;
  status: number;
  ms: number;
}

async function timed(call: () => Promise<HttpResponse>): Promise<HttpResponse & { ms: number; at: number }> {
  const at = Date.now();
  const res = await call().catch(() => ({ status: 0, headers: {}, text: '', json: undefined }) as HttpResponse);
  return { ...res, ms: Date.now() - at, at };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

beforeAll(async () => {
  const artifacts = await ensureArtifacts(log, { mongo: false, elasticsearch: true });
  cluster = await startElasticsearchCluster(artifacts.elasticsearchHome as string, { persistent: false, log }, 3);
  alive = cluster.nodes.map((n) => n.url);
  // Deadlines of a loaded machine (three more JVMs beside the shared backends): embedding a batch
  // took longer than the test stack's 5 s.
  stack = await startStack({
    env: { ELASTICSEARCH_URL: cluster.url, RATE_LIMIT_PER_MINUTE: '0', GRPC_DEADLINE_MS: '30000' },
  });
  token = await stack.tenantWithToken(tenant);
  expect((await request('/api/knowledge/sites', { method: 'POST', body: { slug: 'shop', name: 'Shop' } })).status).toBe(
    201,
  );
  const products = QUERIES.flatMap((q, i) =>
    [1, 2, 3, 4].map((n) => ({
      external_id: `seed-${i}-${n}`,
      title: `${q} model ${n}`,
      description: `A ${q} for the outdoors, model ${n}`,
      language: 'en',
    })),
  );
  const bulk = await request('/api/knowledge/products/bulk?site_id=shop', { method: 'POST', body: { products } });
  expect({ status: bulk.status, created: bulk.json?.summary?.created }).toEqual({
    status: 200,
    created: products.length,
  });
}, 600_000);

afterAll(async () => {
  await stack?.stop();
  await cluster?.stop();
});

test(
  'when one node of three is killed under load, then searches keep answering, acknowledged writes are ' +
    'searchable afterwards and /readyz stays 200',
  async () => {
    // With no setting given, every index of the stack has a replica on this cluster, and is green.
    const pattern = `${stack.indexPrefix}-*`;
    const health = await es(`/_cluster/health/${pattern}?wait_for_status=green&timeout=60s&level=indices`);
    expect(health.status).toBe('green');
    const indices = (await es(`/_cat/indices/${pattern}?format=json&h=index,health,rep`)) as {
      index: string;
      health: string;
      rep: string;
    }[];
    expect(indices.length).toBeGreaterThanOrEqual(3); // products, entries, embedding cache
    for (const index of indices) expect(index).toMatchObject({ health: 'green', rep: '1' });
    const settings = await es(`/${pattern}/_settings/index.auto_expand_replicas?flat_settings=true`);
    for (const index of indices) expect(settings[index.index].settings['index.auto_expand_replicas']).toBe('0-1');

    // The node holding the products primary goes.
    const shards = (await es(`/_cat/shards/${stack.indexPrefix}-products-*?format=json&h=prirep,node`)) as {
      prirep: string;
      node: string;
    }[];
    const victim = shards.find((s) => s.prirep === 'p')?.node as string;
    const victimIndex = Number(victim.slice(1)) - 1;
    const victimNode = cluster.nodes[victimIndex]!;
    const master = ((await es('/_cat/nodes?format=json&h=name,master')) as { name: string; master: string }[]).find(
      (n) => n.master === '*',
    )?.name;

    const searches: Sample[] = [];
    const writes: (Sample & { id?: string; marker: string; detail?: string })[] = [];
    const ready: Sample[] = [];
    let killedAt = 0;
    let stopAt = Date.now() + LOAD_BEFORE_MS + LOAD_AFTER_MS;
    const searchLoop = async (offset: number) => {
      for (let i = offset; Date.now() < stopAt; i += 2) {
        const res = await timed(() =>
          request('/api/knowledge/search/products', {
            method: 'POST',
            body: { query: QUERIES[i % QUERIES.length], site_id: 'shop', language: 'en', limit: 5 },
          }),
        );
        searches.push({ at: res.at, status: res.status, ms: res.ms });
        await sleep(50);
      }
    };
    const writeLoop = async () => {
      for (let i = 0; Date.now() < stopAt; i++) {
        const marker = `outage${i}x${Date.now() % 100000}`;
        const res = await timed(() =>
          request('/api/knowledge/products?site_id=shop', {
            method: 'POST',
            body: {
              external_id: `write-${i}`,
              title: `Lantern ${marker}`,
              description: `A camping lantern, batch ${marker}`,
              language: 'en',
            },
          }),
        );
        writes.push({ at: res.at, status: res.status, ms: res.ms, id: res.json?.id, marker, detail: res.json?.detail });
        await sleep(100);
      }
    };
    const readyLoop = async () => {
      while (Date.now() < stopAt) {
        const res = await timed(() => stack.request(tenant, '/readyz', {}));
        ready.push({ at: res.at, status: res.status, ms: res.ms });
        await sleep(250);
      }
    };
    const kill = async () => {
      await sleep(LOAD_BEFORE_MS);
      killedAt = Date.now();
      process.kill(-victimNode.supervised.current().pgid, 'SIGKILL');
      alive = alive.filter((url) => url !== victimNode.url);
      log(
        `killed node ${victim} (process group ${victimNode.supervised.current().pgid}, ${victimNode.url}; ` +
          `${victim === master ? 'the elected master' : `the master was ${master}`})`,
      );
      stopAt = killedAt + LOAD_AFTER_MS;
    };
    await Promise.all([searchLoop(0), searchLoop(1), writeLoop(), readyLoop(), kill()]);

    const before = searches.filter((s) => s.at < killedAt);
    const first = searches.filter((s) => s.at >= killedAt && s.at < killedAt + FIRST_WINDOW_MS);
    const after = searches.filter((s) => s.at >= killedAt + FIRST_WINDOW_MS);
    const answered = (samples: Sample[]) => samples.filter((s) => s.status === 200).length;
    const share = (samples: Sample[]) => (100 * answered(samples)) / Math.max(1, samples.length);
    const ms = (samples: Sample[]) =>
      `p50 ${percentile(
        samples.map((s) => s.ms),
        50,
      )} ms, p95 ${percentile(
        samples.map((s) => s.ms),
        95,
      )} ms, max ${Math.max(...samples.map((s) => s.ms))} ms`;
    const failed = first.filter((s) => s.status !== 200);
    const duringOutage = writes.filter((w) => w.at >= killedAt);
    const acknowledged = writes.filter((w) => w.status === 200 || w.status === 201);
    const refused = writes.filter((w) => w.status !== 200 && w.status !== 201);
    process.stdout.write(
      [
        `[es-node-loss] searches before the kill: ${before.length}, ${share(before).toFixed(1)}% answered (${ms(before)})`,
        `[es-node-loss] first ${FIRST_WINDOW_MS / 1000} s after: ${first.length}, ${share(first).toFixed(1)}% answered ` +
          `(${ms(first)}); failures: ${failed.map((s) => `${s.status} at +${s.at - killedAt} ms`).join(', ') || 'none'}`,
        `[es-node-loss] after that: ${after.length}, ${share(after).toFixed(1)}% answered (${ms(after)})`,
        `[es-node-loss] writes: ${writes.length} (${duringOutage.length} after the kill), ${acknowledged.length} acknowledged ` +
          `(${ms(duringOutage)} after the kill); not acknowledged: ` +
          `${refused.map((w) => `${w.status} at ${w.at - killedAt} ms from the kill (${w.detail})`).join(', ') || 'none'}`,
        `[es-node-loss] /readyz: ${ready.length} probes, statuses ${[...new Set(ready.map((r) => r.status))].join(', ')}`,
        '',
      ].join('\n'),
    );

    expect(share(first)).toBeGreaterThanOrEqual(90);
    expect(after.length).toBeGreaterThan(0);
    expect(share(after)).toBe(100);
    expect(ready.every((r) => r.status === 200)).toBe(true);
    expect(duringOutage.length).toBeGreaterThan(0);

    // Every acknowledged write is searchable once the indexer has caught up.
    const deadline = Date.now() + 60_000;
    while ((await stack.indexPending()) > 0 && Date.now() < deadline) await sleep(250);
    await es(`/${stack.indexPrefix}-products-*/_refresh`, { method: 'POST' });
    const missing: string[] = [];
    for (const write of acknowledged) {
      const res = await request('/api/knowledge/search/products', {
        method: 'POST',
        body: { query: write.marker, site_id: 'shop', language: 'en', limit: 5 },
      });
      if (!res.json?.products?.some((p: { id: string }) => p.id === write.id)) missing.push(write.marker);
    }
    expect(missing).toEqual([]);
    // The own indices still serve (yellow until the lost copies are rebuilt on the two left).
    const left = await es(`/_cluster/health/${pattern}?level=indices`);
    expect(['green', 'yellow']).toContain(left.status);
  },
  300_000,
);
