/**
 * The four services as processes, started the way `npm start` starts them (the OpenTelemetry
 * preload, one process group each, logs in files), for `npm start` and `npm run bench`.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { checkoutDir } from './cache';
import { freePorts } from './ports';
import { startProcess, waitUntil, type RunningProcess } from './process-group';

export const SERVICES = ['knowledge', 'catalog', 'similarity', 'gateway'] as const;
export type ServiceName = (typeof SERVICES)[number];

export interface ServicesOptions {
  mongoUri: string;
  elasticsearchUrl: string;
  model: { dir: string; name: string; dims: number };
  /** The gateway's HTTP port. */
  port: number;
  logDir: string;
  /** Settings of every service (after the defaults), e.g. telemetry. */
  env?: Record<string, string>;
  /** Extra node flags per service, e.g. --cpu-prof. */
  nodeArgs?: (service: ServiceName) => string[];
  /** The Node binary to run the services with (default: this process's), e.g. another Node version measured. */
  node?: string;
  /** Called with each process as it starts, before the next one (run-state tracking). */
  onStarted?: (child: RunningProcess) => void;
  /**
   * Rewrites how a service's process is started, e.g. inside a memory cgroup with the chart's
   * settings (the benchmark's BENCH_MEMORY_LIMITS); `env` is a default the run's settings override.
   */
  launcher?: (
    service: ServiceName,
    command: string,
    args: string[],
  ) => { command: string; args: string[]; env?: Record<string, string> };
}

export interface RunningServices {
  children: RunningProcess[];
  grpcAddresses: { knowledge: string; catalog: string; similarity: string };
  /** Starts a service again as it was first started (same ports, same settings); `children` holds the new process. */
  restart(name: ServiceName): Promise<RunningProcess>;
  /** The install's secrets: what the services sign with, and the system credential the similarity service verifies (the admin CLI's). */
  secrets: { service: string; system: string };
  /** The gateway first (no new requests), then the back services. */
  stop(): Promise<void>;
}

/** Starts knowledge, catalog, similarity and the gateway and waits for the gateway's /readyz. */
export async function startServices(opts: ServicesOptions): Promise<RunningServices> {
  mkdirSync(opts.logDir, { recursive: true });
  const [knowledge, catalog, similarity] = (await freePorts(3)) as [number, number, number];
  const grpcPorts = { knowledge, catalog, similarity };
  const grpcAddresses = {
    knowledge: `127.0.0.1:${grpcPorts.knowledge}`,
    catalog: `127.0.0.1:${grpcPorts.catalog}`,
    similarity: `127.0.0.1:${grpcPorts.similarity}`,
  };
  // The install's secrets (docs/operations.md, "Service-to-service authentication"): the
  // environment's, else new random ones for this run. Only the similarity service gets the system one.
  const { SERVICE_SYSTEM_SECRET: givenSystemSecret, ...environment } = process.env;
  const { SERVICE_SYSTEM_SECRET: systemSecret = givenSystemSecret || randomBytes(32).toString('base64url'), ...env } =
    opts.env ?? {};
  const serviceSecret =
    env.SERVICE_AUTH_SECRET || environment.SERVICE_AUTH_SECRET || randomBytes(32).toString('base64url');
  const common = {
    ...environment,
    SERVICE_AUTH_SECRET: serviceSecret,
    GRPC_HOST: '127.0.0.1',
    MONGODB_URI: opts.mongoUri,
    ELASTICSEARCH_URL: opts.elasticsearchUrl,
    EMBEDDING_MODEL_DIR: opts.model.dir,
    EMBEDDING_MODEL_NAME: opts.model.name,
    EMBEDDING_DIMS: String(opts.model.dims),
    KNOWLEDGE_GRPC_PORT: String(grpcPorts.knowledge),
    CATALOG_GRPC_PORT: String(grpcPorts.catalog),
    SIMILARITY_GRPC_PORT: String(grpcPorts.similarity),
    KNOWLEDGE_GRPC_ADDR: grpcAddresses.knowledge,
    CATALOG_GRPC_ADDR: grpcAddresses.catalog,
    SIMILARITY_GRPC_ADDR: grpcAddresses.similarity,
    PORT: String(opts.port),
    HOST: process.env.HOST ?? '127.0.0.1',
    ...env,
  };
  const telemetry = require.resolve('@kb/platform/telemetry');
  const children: RunningProcess[] = [];
  const stop = async () => {
    for (const name of [...SERVICES].reverse()) await children.find((c) => c.name === name)?.stop();
  };
  const launch = async (name: ServiceName): Promise<RunningProcess> => {
    // --title rewrites the process's command line to the title, which is then the marker a
    // later run recognises it by.
    const marker = `kb-${name}`;
    const node = opts.node ?? process.execPath;
    const args = [
      `--title=${marker}`,
      ...(opts.nodeArgs?.(name) ?? []),
      '--require',
      telemetry,
      join(checkoutDir(), 'services', name, 'dist', 'main.js'),
    ];
    const launched = opts.launcher ? opts.launcher(name, node, args) : { command: node, args };
    return startProcess({
      name,
      command: launched.command,
      args: launched.args,
      env: {
        ...launched.env, // the settings given to this run, and this process's environment, win
        ...common,
        ...(name === 'similarity' ? { SERVICE_SYSTEM_SECRET: systemSecret } : {}),
        OTEL_SERVICE_NAME: `kb-${name}`,
      },
      cwd: checkoutDir(),
      logFile: join(opts.logDir, `${name}.log`),
      marker,
      // A restarted service's log goes on after the one that ended (the crash stays readable).
      append: true,
    });
  };
  try {
    for (const name of SERVICES) {
      const child = await launch(name);
      children.push(child);
      opts.onStarted?.(child);
    }
    await waitForReady(children, opts.port);
  } catch (err) {
    await stop();
    throw err;
  }
  const restart = async (name: ServiceName): Promise<RunningProcess> => {
    const child = await launch(name);
    children.splice(
      children.findIndex((c) => c.name === name),
      1,
      child,
    );
    // Up once its own health says so (the gateway's /readyz would also wait on the others).
    const live = await waitUntil(() => child.exitReason() !== undefined || serviceAnswers(name, common), 60_000, 250);
    if (!live || child.exitReason())
      throw new Error(
        `the ${name} service ${child.exitReason() ?? 'did not answer within 60 s'}; its log: ${child.logFile}`,
      );
    return child;
  };
  return { children, grpcAddresses, restart, secrets: { service: serviceSecret, system: systemSecret }, stop };
}

/** Waits for the gateway's /readyz; a service that exits meanwhile fails the start with its log's path. */
async function waitForReady(children: RunningProcess[], port: number): Promise<void> {
  const readyz = `http://127.0.0.1:${port}/readyz`;
  let last = '';
  const ready = await waitUntil(
    async () => {
      const dead = children.find((c) => c.exitReason());
      if (dead)
        throw new Error(`the ${dead.name} service ${dead.exitReason()} during start-up; its log: ${dead.logFile}`);
      try {
        const res = await fetch(readyz);
        last = await res.text();
        return res.status === 200;
      } catch {
        return false;
      }
    },
    120_000,
    500,
  );
  if (!ready) throw new Error(`the services did not become ready within 120 s; last /readyz answer: ${last}`);
}

/** Whether a started service accepts connections: the gateway on its HTTP port, a back service on its gRPC port. */
async function serviceAnswers(name: ServiceName, env: Record<string, string | undefined>): Promise<boolean> {
  const port = Number(name === 'gateway' ? env.PORT : env[`${name.toUpperCase()}_GRPC_PORT` as 'KNOWLEDGE_GRPC_PORT']);
  if (name === 'gateway') {
    try {
      return (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200;
    } catch {
      return false;
    }
  }
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => (socket.destroy(), resolve(false)));
  });
}
