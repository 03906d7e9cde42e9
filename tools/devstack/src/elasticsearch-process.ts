import { randomBytes } from 'node:crypto';
import { chownSync, cpSync, lchownSync, mkdirSync, readdirSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { elasticsearchBaseDir } from './cache';
import { findElasticsearchJdk } from './java';
import { freePorts } from './ports';
import { waitUntil, type ProcessSpec } from './process-group';
import { backendDir, startUntilReady, type LocalBackend, type LocalProcessOptions } from './local-backend';
import { ELASTICSEARCH_USER, ensureSystemUser } from './system-user';
import { heapSetting } from './heap';

/**
 * Heap of the single node, and of each node of a cluster (three of them share the machine);
 * KB_ES_HEAP_MB sets either (e.g. the benchmark's scale mode, hundreds of thousands of documents).
 */
const SINGLE_NODE_HEAP_MB = 512;
const CLUSTER_NODE_HEAP_MB = 384;
/** Three JVMs starting at once on two busy cores took over two minutes to join (one alone: ~25 s). */
const CLUSTER_START_MS = 300_000;

/** How one node joins the others: its name, and every node's transport port. */
interface ClusterRole {
  nodeName: string;
  nodeNames: string[];
  transportPorts: number[];
}

/** Starts Elasticsearch from the unpacked distribution at `home`, one node on free loopback ports. */
export async function startElasticsearchProcess(home: string, opts: LocalProcessOptions): Promise<LocalBackend> {
  const { dir, temporary } = backendDir('elasticsearch', elasticsearchBaseDir(), opts);
  const [httpPort, transportPort] = (await freePorts(2)) as [number, number];
  return startNode(home, opts, {
    dir,
    temporary,
    httpPort,
    transportPort,
    heapMb: heapSetting('KB_ES_HEAP_MB', SINGLE_NODE_HEAP_MB),
  });
}

/** A cluster of local nodes: the URL lists every node's, comma-separated (ELASTICSEARCH_URL's form). */
export interface LocalCluster {
  url: string;
  nodes: LocalBackend[];
  stop(): Promise<void>;
}

/**
 * Starts a cluster of `count` nodes on loopback (NOTES.md's recipe): one process per node, each in
 * its own process group (so one can be killed alone), with its own data, logs and config, its own
 * HTTP and transport ports, every node master-eligible and a data node, and green once all have joined.
 */
export async function startElasticsearchCluster(
  home: string,
  opts: LocalProcessOptions,
  count: number,
): Promise<LocalCluster> {
  const { log } = opts;
  const ports = await freePorts(2 * count);
  const nodeNames = Array.from({ length: count }, (_, i) => `n${i + 1}`);
  const transportPorts = nodeNames.map((_, i) => ports[2 * i + 1] as number);
  const base = elasticsearchBaseDir();
  // One snapshot folder (path.repo) for every node: a filesystem repository must be the same
  // shared folder on each (on servers, a shared mount), or Elasticsearch refuses to register it.
  const { dir: repoDir } = backendDir(
    `elasticsearch-${count}-nodes-snapshots`,
    base,
    opts.dataDir ? { ...opts, dataDir: join(opts.dataDir, 'snapshots') } : opts,
  );
  const started = Date.now();
  log(`Starting an Elasticsearch cluster of ${count} nodes ...`);
  const results = await Promise.allSettled(
    nodeNames.map((nodeName, i) => {
      // A cluster's data is its own: never a single node's folder, nor another cluster size's.
      const { dir, temporary } = backendDir(
        `elasticsearch-${count}-nodes-${nodeName}`,
        base,
        opts.dataDir ? { ...opts, dataDir: join(opts.dataDir, nodeName) } : opts,
      );
      return startNode(home, opts, {
        dir,
        temporary,
        httpPort: ports[2 * i] as number,
        transportPort: transportPorts[i] as number,
        heapMb: heapSetting('KB_ES_HEAP_MB', CLUSTER_NODE_HEAP_MB),
        timeoutMs: CLUSTER_START_MS,
        cluster: { nodeName, nodeNames, transportPorts },
        repoDir,
      });
    }),
  );
  const nodes = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.stop()));
  };
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
  if (failures.length) {
    await stop();
    throw new Error(failures.map((f) => f.message).join('\n\n'));
  }
  const url = nodes.map((n) => n.url).join(',');
  const first = nodes[0]?.url as string;
  const formed = await waitUntil(
    async () =>
      (await httpStatus(`${first}/_cluster/health?wait_for_nodes=${count}&wait_for_status=green&timeout=1s`)) === 200,
    CLUSTER_START_MS,
    250,
  );
  if (!formed) {
    await stop();
    throw new Error(
      `The Elasticsearch cluster did not reach ${count} nodes and green within ${CLUSTER_START_MS / 1000} s`,
    );
  }
  log(`Elasticsearch cluster of ${count} nodes green on ${url} in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  return { url, nodes, stop };
}

/** One node; with `cluster`, a member of a cluster rather than a single-node one. (Long: one process spec, read as a whole.) */
async function startNode(
  home: string,
  opts: LocalProcessOptions,
  node: {
    dir: string;
    temporary: boolean;
    httpPort: number;
    transportPort: number;
    heapMb: number;
    timeoutMs?: number;
    cluster?: ClusterRole;
    /** path.repo when not the node's own `snapshots` folder (a cluster's shared one). */
    repoDir?: string;
  },
): Promise<LocalBackend> {
  const { log } = opts;
  const { dir, temporary, httpPort, transportPort, cluster } = node;
  const jdk = findElasticsearchJdk();
  const repoDir = node.repoDir ?? join(dir, 'snapshots');
  for (const sub of [join(dir, 'data'), join(dir, 'logs'), join(dir, 'tmp'), repoDir])
    mkdirSync(sub, { recursive: true });
  // A private copy of config/: Elasticsearch writes its keystore there, and the unpacked
  // distribution stays read-only and shared by every run.
  cpSync(join(home, 'config'), join(dir, 'config'), { recursive: true, force: true });

  // Elasticsearch refuses to run as root: run it as a dedicated unprivileged user.
  const user = process.getuid?.() === 0 ? ensureSystemUser(ELASTICSEARCH_USER, log) : undefined;
  if (user) for (const owned of new Set([dir, repoDir])) chownTree(owned, user.uid, user.gid);

  const marker = `kb-devstack-${randomBytes(6).toString('hex')}`;
  const url = `http://127.0.0.1:${httpPort}`;
  const what = cluster ? `Elasticsearch node ${cluster.nodeName}` : 'Elasticsearch';
  log(
    `Starting ${what} on ${url} (data: ${temporary ? 'temporary' : dir}${user ? `, as user ${ELASTICSEARCH_USER}` : ''}) ...`,
  );
  const started = Date.now();
  const discovery = cluster
    ? [
        ['node.name', cluster.nodeName],
        ['cluster.name', `kb-devstack-${cluster.nodeNames.length}-nodes`],
        ['discovery.seed_hosts', cluster.transportPorts.map((p) => `127.0.0.1:${p}`).join(',')],
        ['cluster.initial_master_nodes', cluster.nodeNames.join(',')],
      ]
    : [['discovery.type', 'single-node']];
  const spec: ProcessSpec = {
    name: cluster ? `elasticsearch-${cluster.nodeName}` : 'elasticsearch',
    command: join(home, 'bin', 'elasticsearch'),
    args: [
      ...discovery,
      ['network.host', '127.0.0.1'],
      ['http.port', String(httpPort)],
      ['transport.port', String(transportPort)],
      ['xpack.security.enabled', 'false'],
      // Dev machines often have fuller disks than servers; do not refuse to allocate shards.
      ['cluster.routing.allocation.disk.threshold_enabled', 'false'],
      ['path.data', join(dir, 'data')],
      ['path.logs', join(dir, 'logs')],
      // Where a filesystem snapshot repository may live (docs/operations.md, "Backup and restore";
      // the snapshot drill test finds it in the node's settings).
      ['path.repo', repoDir],
    ].flatMap(([k, v]) => ['-E', `${k}=${v}`]),
    env: {
      ...process.env,
      ES_JAVA_HOME: jdk.home,
      // The marker lands on the server JVM's command line, so a later run can recognise it.
      ES_JAVA_OPTS: `-Xms${node.heapMb}m -Xmx${node.heapMb}m -Dkb.devstack=${marker}`,
      ES_PATH_CONF: join(dir, 'config'),
      ES_TMPDIR: join(dir, 'tmp'),
      ...(user ? { HOME: dir, USER: ELASTICSEARCH_USER, LOGNAME: ELASTICSEARCH_USER } : {}),
    },
    cwd: dir,
    logFile: join(dir, 'elasticsearch.out.log'),
    marker,
    ...(user ?? {}),
  };
  const { stop, supervised } = await startUntilReady({
    what,
    spec,
    dir,
    temporary,
    opts,
    // Yellow or green: a restarted node with data is usable only once its shards are recovered
    // (a cluster node answers once a master is elected, which takes a majority of the nodes).
    ready: async () => (await httpStatus(`${url}/_cluster/health?wait_for_status=yellow&timeout=1s`)) === 200,
    timeoutMs: node.timeoutMs ?? 120_000,
    pollMs: 250,
  });
  log(`${what} ready on ${url} (pid ${supervised.current().pgid}) in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  return { url, stop, supervised };
}

function chownTree(path: string, uid: number, gid: number): void {
  chownSync(path, uid, gid);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) chownTree(child, uid, gid);
    else lchownSync(child, uid, gid);
  }
}

/** Status code of a GET, or 0 when nothing answers (yet). */
function httpStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = get(url, { timeout: 5_000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}
