import { rmSync } from 'node:fs';
import { ensureArtifacts } from './artifacts';
import { startElasticsearchCluster, startElasticsearchProcess, type LocalCluster } from './elasticsearch-process';
import { findElasticsearchJdk, findJava17 } from './java';
import type { LocalBackend } from './local-backend';
import type { Supervised } from './supervisor';
import type { Log } from './log';
import { startMongoProcess } from './mongo-process';
import {
  newRunState,
  readStartState,
  reapStale,
  runStatePath,
  writeRunState,
  type RunState,
  type RunTracker,
  type TrackedProcess,
} from './state';
import { dockerEngineAnswers, startContainerBackends } from './testcontainers-backends';

export type BackendMode = 'env' | 'testcontainers' | 'local';

export interface Backends {
  /** How the backends were provided; when they differ, how the started ones were. */
  mode: BackendMode;
  sources: { mongo: BackendMode; elasticsearch: BackendMode };
  /** No database name in it: services choose theirs. */
  mongoUri: string;
  elasticsearchUrl: string;
  /** The run-state file that records this run (removed by stop()). */
  statePath: string;
  /** Records another process of this run (e.g. a service) so a later run stops it if this one dies. */
  trackProcess(p: TrackedProcess): void;
  /** Merges into the run state's `extra`, e.g. the gateway URL for the admin CLI. */
  recordExtra(extra: Record<string, unknown>): void;
  /** The backends started here as local processes, for `npm start` to restart if they end (none otherwise). */
  supervised: Supervised[];
  /** Stops what this call started and removes the run-state file. */
  stop(): Promise<void>;
}

export interface StartBackendsOptions {
  /** true for `npm start` (data kept between runs, one per checkout); false for tests. */
  persistent: boolean;
  log: Log;
  startTimeoutMs?: number;
  /**
   * Elasticsearch nodes to start when it is not given by URL (default 1): more than one is a
   * cluster of local processes (`npm start -- --es-nodes 3`, KB_ES_NODES=3 for the tests), and
   * `elasticsearchUrl` lists every node's URL, comma-separated.
   */
  elasticsearchNodes?: number;
}

/**
 * MongoDB and Elasticsearch, each from MONGODB_URI / ELASTICSEARCH_URL when set, else from a
 * Docker engine through testcontainers, else as local processes on loopback.
 */
export async function startBackends(opts: StartBackendsOptions): Promise<Backends> {
  const { log, persistent } = opts;
  await reapStale(log);
  const kind = persistent ? 'start' : 'test';
  if (persistent) refuseSecondStart();
  const statePath = runStatePath(kind);
  const state: RunState = newRunState(kind);
  let stopped = false;
  const save = (): void => {
    if (!stopped) writeRunState(statePath, state);
  };
  // Recorded the moment they exist, so a crash during start-up still leaves them findable.
  const tracker: RunTracker = {
    addProcess: (p) => (state.processes.push(p), save()),
    addTempDir: (d) => (state.tempDirs.push(d), save()),
  };
  save();

  const envMongo = process.env.MONGODB_URI;
  const envEs = process.env.ELASTICSEARCH_URL;
  if (envMongo) log(`MongoDB: ${redact(envMongo)} (from MONGODB_URI)`);
  if (envEs) log(`Elasticsearch: ${redact(envEs)} (from ELASTICSEARCH_URL)`);
  const need = { mongo: !envMongo, elasticsearch: !envEs };

  let mode: BackendMode = 'env';
  let started: Started = { stop: async () => {} };
  try {
    if (need.mongo || need.elasticsearch)
      ({ mode, started } = await startMissing(need, Boolean(envMongo || envEs), { ...opts, tracker }));
  } catch (err) {
    rmSync(statePath, { force: true });
    throw err;
  }

  const backends: Backends = {
    mode,
    sources: { mongo: envMongo ? 'env' : mode, elasticsearch: envEs ? 'env' : mode },
    mongoUri: envMongo ?? (started.mongoUri as string),
    elasticsearchUrl: (envEs ?? (started.elasticsearchUrl as string)).replace(/\/+$/, ''),
    statePath,
    supervised: started.supervised ?? [],
    trackProcess: tracker.addProcess,
    recordExtra: (extra) => {
      state.extra = { ...state.extra, ...extra };
      save();
    },
    stop: once(async () => {
      await started.stop();
      stopped = true;
      rmSync(statePath, { force: true });
    }),
  };
  Object.assign(state, { mode, mongoUri: backends.mongoUri, elasticsearchUrl: backends.elasticsearchUrl });
  save();
  return backends;
}

type Started = { mongoUri?: string; elasticsearchUrl?: string; supervised?: Supervised[]; stop(): Promise<void> };

/** One `npm start` per checkout: a second would fight the first over ports and state. */
function refuseSecondStart(): void {
  const other = readStartState();
  if (other && other.owner.pid !== process.pid) {
    throw new Error(
      `Another \`npm start\` of this checkout is running (pid ${other.owner.pid}, since ${other.startedAt}; ` +
        `MongoDB ${redact(other.mongoUri)}, Elasticsearch ${other.elasticsearchUrl}). Stop it first.`,
    );
  }
}

/** The backends not given by URL: in a Docker engine when one answers and can pull them, else as local processes. */
async function startMissing(
  need: { mongo: boolean; elasticsearch: boolean },
  someFromEnv: boolean,
  opts: StartBackendsOptions & { tracker: RunTracker },
): Promise<{ mode: BackendMode; started: Started }> {
  const { log, persistent } = opts;
  const cluster = need.elasticsearch && (opts.elasticsearchNodes ?? 1) > 1;
  const engine = !cluster && (await dockerEngineAnswers());
  if (cluster) log(`An Elasticsearch cluster of ${opts.elasticsearchNodes} nodes: running the backends locally.`);
  if (engine) {
    log(
      `A Docker engine answers: starting ${describe(need)} with testcontainers` +
        `${persistent ? ' (data is not kept between runs in Docker)' : ''}.`,
    );
    // An engine without a reachable image registry (podman on an offline machine) cannot
    // pull MongoDB or Elasticsearch; the local processes serve the same code paths.
    const containers = await startContainerBackends(need, log).catch((err: Error) => {
      log(`Could not start them in the engine (${err.message.split('\n')[0]}); running them locally instead.`);
      return undefined;
    });
    if (containers) return { mode: 'testcontainers', started: containers };
  }
  if (!engine && !cluster)
    log(
      `No Docker engine${someFromEnv ? '' : ' and no MONGODB_URI / ELASTICSEARCH_URL'}: running ${describe(need)} locally on 127.0.0.1.`,
    );
  return {
    mode: 'local',
    started: await startLocal(need, {
      persistent,
      log,
      tracker: opts.tracker,
      startTimeoutMs: opts.startTimeoutMs,
      elasticsearchNodes: opts.elasticsearchNodes ?? 1,
    }),
  };
}

/** Both local processes at once; if one fails the other is stopped before the error goes up. */
async function startLocal(
  need: { mongo: boolean; elasticsearch: boolean },
  opts: { persistent: boolean; log: Log; tracker: RunTracker; startTimeoutMs?: number; elasticsearchNodes: number },
): Promise<Started> {
  // Before any download or start, so a missing JDK is reported first and alone.
  if (need.elasticsearch) findElasticsearchJdk();
  if (need.mongo) findJava17();
  const artifacts = await ensureArtifacts(opts.log, need);
  const home = artifacts.elasticsearchHome;
  const results = await Promise.allSettled([
    artifacts.mongoLibDir ? startMongoProcess(artifacts.mongoLibDir, opts) : undefined,
    home && opts.elasticsearchNodes > 1 ? startElasticsearchCluster(home, opts, opts.elasticsearchNodes) : undefined,
    home && opts.elasticsearchNodes <= 1 ? startElasticsearchProcess(home, opts) : undefined,
  ]);
  const running = results.flatMap((r) => (r.status === 'fulfilled' && r.value ? [r.value] : []));
  const stop = async (): Promise<void> => {
    await Promise.all(running.map((b: LocalBackend | LocalCluster) => b.stop()));
  };
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
  if (failures.length) {
    await stop();
    throw failures.length === 1 ? failures[0] : new Error(failures.map((f) => f.message).join('\n\n'));
  }
  const [mongo, cluster, node] = results.map((r) => (r.status === 'fulfilled' ? r.value : undefined));
  const es = cluster ?? node;
  const supervised = running.flatMap((b) => ('nodes' in b ? b.nodes.map((n) => n.supervised) : [b.supervised]));
  return { mongoUri: mongo?.url, elasticsearchUrl: es?.url, supervised, stop };
}

function describe(need: { mongo: boolean; elasticsearch: boolean }): string {
  return [need.mongo && 'MongoDB', need.elasticsearch && 'Elasticsearch'].filter(Boolean).join(' and ');
}

/** Hides a password in a URL before it is logged. */
function redact(url: string | undefined): string {
  return (url ?? '?').replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= fn());
}
