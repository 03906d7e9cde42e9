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
  gatewayUrl: string;
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
  ): Promise<{ gatewayUrl: string; services: RunningServices }>;
  token(role?: string): Promise<string>;
  /** Products and entries still waiting for the indexer (needs_index / index_pending). */
  backlog(): Promise<number>;
  /** BENCH_MEMORY_LIMITS=chart: the memory cgroups every service process runs in (memory-limits.ts). */
  memoryLimits: MemoryCgroups | undefined;
  stop(): Promise<void>;
}

export async function startBenchStack(log: (msg: string) => void): Promise<BenchStack> {
  const model = await ensureEmbeddingModel(log);
  const serviceNode = await ensureServiceNode(log);
  const memoryLimits = chartLimitsWanted(log);
  const replicas = replicasWanted(log);
  const backends = await startBackends({ persistent: false, log });
  const url = new URL(backends.mongoUri);
  url.pathname = `/${DATABASE}`;
  const mongoUri = url.toString();
  const port = await freePort();
  const logDir = join(runDir(), 'bench-logs');
  mkdirSync(logDir, { recursive: true });
  let db: mongoose.Connection | undefined;
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
    logDir,
    services: undefined,
    async startServices(env, nodeArgs, node) {
      await stack.stopServices();
      stack.services = await launch(port, logDir, env, nodeArgs, node);
      return stack.services;
    },
    async startServiceSet(name, env, node) {
      const setPort = await freePort();
      const services = await launch(setPort, join(logDir, name), env, undefined, node);
      return { gatewayUrl: `http://127.0.0.1:${setPort}`, services };
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

/** BENCH_MEMORY_LIMITS=chart: the chart's memory limits, one cgroup per service process; unset: none. */
/**
 * BENCH_REPLICAS (default 1): processes of each service, every client balancing over them (the
 * load goes to the first gateway, which spreads it over the back services' replicas).
 */
function replicasWanted(log: (msg: string) => void): number {
  const wanted = process.env.BENCH_REPLICAS || '1';
  const n = Number(wanted);
  if (!Number.isInteger(n) || n < 1 || n > 8)
    throw new Error(`BENCH_REPLICAS: a whole number from 1 to 8, not ${wanted}`);
  if (n > 1) log(`${n} replicas of each service`);
  return n;
}

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
