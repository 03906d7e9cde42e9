/** The stack the benchmark measures: fresh backends, the four services as `npm start` runs them, one tenant. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import mongoose from 'mongoose';
import type { Role } from '@kb/platform';
import { knowledgeAdmin } from '@kb/knowledge';
import {
  checkoutDir,
  ensureEmbeddingModel,
  ensureServiceNode,
  freePort,
  groupMembers,
  procStat,
  runDir,
  SERVICES,
  startBackends,
  startServices,
  type Backends,
  type EmbeddingModel,
  type RunningServices,
  type ServiceName,
} from '@kb/devstack';
import { chartPodSettings, MemoryCgroups } from './memory-limits';
import { replicaCounts } from './settings';

export const TENANT = 'bench';
/** BENCH_DATABASE and BENCH_INDEX_PREFIX keep two runs on shared backends apart. */
const DATABASE = process.env.BENCH_DATABASE ?? 'kb_bench';
export const INDEX_PREFIX = process.env.BENCH_INDEX_PREFIX ?? 'kb';

export interface BenchStack {
  backends: Backends;
  model: EmbeddingModel;
  /** The Node version the services run on (ensureServiceNode: the images' Node, unless told otherwise). */
  serviceNodeVersion: string;
  mongoUri: string;
  /** The first gateway's address (the only one with one replica). */
  gatewayUrl: string;
  /** Processes of each service (BENCH_REPLICAS, or startBenchStack's `replicas`). */
  replicas: number;
  /**
   * Every running gateway's address, the first one first (one replica: gatewayUrl alone). The
   * benchmark's client sends its calls to them in turn; the other gateways' ports change when the
   * services are started again.
   */
  gatewayUrls(): readonly string[];
  logDir: string;
  services: RunningServices | undefined;
  /** (Re)starts the four services with these telemetry settings. */
  startServices(
    env: Record<string, string>,
    nodeArgs?: (s: ServiceName) => string[],
    node?: string,
  ): Promise<RunningServices>;
  stopServices(): Promise<void>;
  /**
   * Another set of the four services beside the main one (its own ports, secrets and logs under
   * `name`), e.g. one per telemetry setting measured side by side. The caller stops it.
   */
  startServiceSet(
    name: string,
    env: Record<string, string>,
    node?: string,
  ): Promise<{ gatewayUrl: string; gatewayUrls: string[]; services: RunningServices }>;
  token(role?: string): Promise<string>;
  /** Products and entries still waiting for the indexer (needs_index / index_pending). */
  backlog(): Promise<number>;
  /** BENCH_MEMORY_LIMITS=chart: the memory cgroups every service process runs in (memory-limits.ts). */
  memoryLimits: MemoryCgroups | undefined;
  stop(): Promise<void>;
}

export async function startBenchStack(
  log: (msg: string) => void,
  options: { replicas?: number } = {},
): Promise<BenchStack> {
  const model = await ensureEmbeddingModel(log);
  const serviceNode = await ensureServiceNode(log);
  const memoryLimits = chartLimitsWanted(log);
  const replicas = options.replicas ?? replicasWanted(process.env.BENCH_REPLICAS);
  if (replicas > 1) log(`${replicas} replicas of each service, the load round robin over their ${replicas} gateways`);
  const backends = await startBackends({ persistent: false, log });
  const url = new URL(backends.mongoUri);
  url.pathname = `/${DATABASE}`;
  const mongoUri = url.toString();
  const port = await freePort();
  const logDir = join(runDir(), 'bench-logs');
  mkdirSync(logDir, { recursive: true });
  let db: mongoose.Connection | undefined;
  let gatewayUrls: readonly string[] = [`http://127.0.0.1:${port}`];
  const launch = (
    gatewayPort: number,
    dir: string,
    env: Record<string, string>,
    nodeArgs?: (s: ServiceName) => string[],
    node?: string,
  ) =>
    startServices({
      mongoUri,
      elasticsearchUrl: backends.elasticsearchUrl,
      model,
      port: gatewayPort,
      logDir: dir,
      env: {
        TENANT_MODE: 'host',
        DEFAULT_TENANT: TENANT,
        RATE_LIMIT_PER_MINUTE: '10000000',
        ELASTICSEARCH_INDEX_PREFIX: INDEX_PREFIX,
        ...env,
      },
      ...(nodeArgs ? { nodeArgs } : {}),
      replicas,
      node: node ?? serviceNode,
      ...(memoryLimits ? { launcher: memoryLimits.launcher } : {}),
      onStarted: (child) => backends.trackProcess({ name: child.name, pgid: child.pgid, marker: child.marker }),
    });
  const stack: BenchStack = {
    backends,
    model,
    serviceNodeVersion: spawnSync(serviceNode, ['--version'], { encoding: 'utf8' }).stdout.trim(),
    mongoUri,
    gatewayUrl: `http://127.0.0.1:${port}`,
    replicas,
    gatewayUrls: () => gatewayUrls,
    logDir,
    services: undefined,
    async startServices(env, nodeArgs, node) {
      await stack.stopServices();
      stack.services = await launch(port, logDir, env, nodeArgs, node);
      gatewayUrls = gatewayUrlsOf(stack.services);
      return stack.services;
    },
    async startServiceSet(name, env, node) {
      const setPort = await freePort();
      const services = await launch(setPort, join(logDir, name), env, undefined, node);
      return { gatewayUrl: `http://127.0.0.1:${setPort}`, gatewayUrls: gatewayUrlsOf(services), services };
    },
    async stopServices() {
      await stack.services?.stop();
      stack.services = undefined;
    },
    async token(role = 'Admin') {
      const connection = await mongoose.createConnection(mongoUri, { serverSelectionTimeoutMS: 10_000 }).asPromise();
      try {
        const admin = await knowledgeAdmin(connection);
        const tenant = await admin.createTenant({ id: TENANT, ifMissing: true });
        if (tenant.status !== 'created' && tenant.status !== 'unchanged')
          throw new Error(`could not create the bench tenant: ${tenant.status}`);
        const created = await admin.createToken({ tenantId: TENANT, role: role as Role, name: 'bench' });
        if (created.status !== 'created') throw new Error(`could not create a bench token: ${created.status}`);
        return created.token;
      } finally {
        await connection.close();
      }
    },
    async backlog() {
      db ??= await mongoose.createConnection(mongoUri, { serverSelectionTimeoutMS: 10_000 }).asPromise();
      const products = await db.collection('products').countDocuments({ needs_index: true });
      const entries = await db
        .collection('knowledge_entries')
        .countDocuments({ index_pending: true })
        .catch(() => 0);
      return products + entries;
    },
    memoryLimits,
    async stop() {
      await db?.close();
      await stack.stopServices();
      await backends.stop();
      if (memoryLimits) {
        // Every mode's log says it, BENCH_ONLY=ingest's too (its report has no table for it).
        const rows = memoryLimits
          .summary()
          .rows.map(
            (r) => `${r.service} ${r.peakMiB.toFixed(0)} of ${r.limitMiB.toFixed(0)} MiB, ${r.oomKills} OOM kills`,
          );
        log(`highest memory under the chart's limits: ${rows.join('; ')}`);
      }
      const left = memoryLimits?.remove() ?? [];
      if (left.length) log(`memory cgroups left behind (a process still in them): ${left.join(', ')}`);
    },
  };
  return stack;
}

/**
 * BENCH_REPLICAS (default 1): processes of each service, every client balancing over them, and
 * the benchmark's calls sent to the gateways in turn. A list (`1,2`) is BENCH_ONLY=replicas's:
 * one stack after the other with each count (replicaCounts).
 */
export function replicasWanted(wanted: string | undefined): number {
  const counts = replicaCounts(wanted);
  if (counts.length !== 1)
    throw new Error(`BENCH_REPLICAS: one count here (a list, ${wanted}, only with BENCH_ONLY=replicas)`);
  return counts[0]!;
}

/** Every gateway of a set of services, the first one first. */
function gatewayUrlsOf(services: RunningServices): string[] {
  return services.replicas.filter((r) => r.service === 'gateway').map((r) => `http://127.0.0.1:${r.port}`);
}

/** BENCH_MEMORY_LIMITS=chart: the chart's memory limits, one cgroup per service process; unset: none. */
function chartLimitsWanted(log: (msg: string) => void): MemoryCgroups | undefined {
  const wanted = process.env.BENCH_MEMORY_LIMITS;
  if (!wanted) return undefined;
  if (wanted !== 'chart') throw new Error(`BENCH_MEMORY_LIMITS: "chart" or unset, not ${wanted}`);
  const values = readFileSync(join(checkoutDir(), 'charts', 'knowledge-service', 'values.yaml'), 'utf8');
  const cgroups = MemoryCgroups.open(chartPodSettings(values, SERVICES));
  const pods = Object.entries(cgroups.pods).map(
    ([name, pod]) =>
      `${name} ${(pod.limitBytes / 2 ** 20).toFixed(0)} MiB` +
      Object.entries(pod.env)
        .map(([k, v]) => ` ${k}=${v}`)
        .join(''),
  );
  log(`each service runs in a memory cgroup (${cgroups.version}) as the chart's pod: ${pods.join(', ')}`);
  return cgroups;
}

/** Peak resident memory (VmHWM) of the largest process in a process group, in MiB. */
export function peakMemoryMiB(pgid: number): number {
  let peak = 0;
  for (const pid of groupMembers(pgid)) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
      peak = Math.max(peak, kb / 1024);
    } catch {
      // gone meanwhile
    }
  }
  return peak;
}

/** CPU time (user + system) of every process in a process group so far, in ms. */
export function cpuMs(pgid: number): number {
  return groupMembers(pgid).reduce((ticks, pid) => ticks + (procStat(pid)?.cpuTicks ?? 0), 0) * 10; // USER_HZ is 100 on Linux
}

/**
 * The backends' process groups as the run state records them (name → pgid), plus those
 * BENCH_BACKEND_PGIDS names (`mongo=123,elasticsearch=456`) for backends given by URL.
 */
export function backendGroups(backends: Backends): Record<string, number> {
  const state = JSON.parse(readFileSync(backends.statePath, 'utf8')) as { processes: { name: string; pgid: number }[] };
  const given = (process.env.BENCH_BACKEND_PGIDS ?? '')
    .split(',')
    .filter(Boolean)
    .map((kv) => kv.split('=') as [string, string]);
  return Object.fromEntries([
    ...given.map(([k, v]) => [k, Number(v)]),
    ...state.processes.map((p) => [p.name, p.pgid]),
  ]);
}
