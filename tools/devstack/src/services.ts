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
type BackService = Exclude<ServiceName, 'gateway'>;

/** The process names of a service's replicas: `knowledge`, then `knowledge-2`, `knowledge-3` … (one replica: the service's name). */
export const replicaNames = (service: ServiceName, replicas: number): string[] =>
  Array.from({ length: replicas }, (_, i) => (i === 0 ? service : `${service}-${i + 1}`));

/** One started process of a service: its process name (`knowledge-2`), and the port it listens on (gRPC, or the gateway's HTTP). */
export interface ServiceReplica {
  name: string;
  service: ServiceName;
  port: number;
}

export interface ServicesOptions {
  mongoUri: string;
  elasticsearchUrl: string;
  model: { dir: string; name: string; dims: number };
  /** The (first) gateway's HTTP port. */
  port: number;
  /**
   * Processes of each service (default 1), each on its own loopback port, with its own process
   * title (`kb-knowledge-2`) and log file (`knowledge-2.log`): every client is given the list of
   * all replicas' addresses and balances its calls over them (round robin, @kb/platform's
   * grpc/balancing.ts). The first gateway listens on `port`, the others on free ports (`replicas`).
   */
  replicas?: number;
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
  /** Each back service's address setting: `127.0.0.1:<port>`, or the comma-separated list of its replicas. */
  grpcAddresses: { knowledge: string; catalog: string; similarity: string };
  /** Every process, in start order (each service's replicas together, the gateways last). */
  replicas: ServiceReplica[];
  /**
   * Starts a process again as it was first started (same port, same settings), by its process
   * name (`knowledge`, `knowledge-2`); `children` holds the new process.
   */
  restart(name: string): Promise<RunningProcess>;
  /** The install's secrets: what the services sign with, and the system credential the similarity service verifies (the admin CLI's). */
  secrets: { service: string; system: string };
  /** The gateways first (no new requests), then the back services. */
  stop(): Promise<void>;
}

/** Starts knowledge, catalog, similarity and the gateway (`replicas` of each) and waits for every gateway's /readyz. */
export async function startServices(opts: ServicesOptions): Promise<RunningServices> {
  mkdirSync(opts.logDir, { recursive: true });
  const count = opts.replicas ?? 1;
  if (!Number.isInteger(count) || count < 1)
    throw new Error(`replicas must be a whole number of at least 1 (${count})`);
  const backServices = SERVICES.filter((s): s is BackService => s !== 'gateway');
  const ports = await freePorts(backServices.length * count + count - 1, [opts.port]);
  const replicas: ServiceReplica[] = [
    ...backServices.flatMap((service) =>
      replicaNames(service, count).map((name) => ({ name, service, port: ports.shift() as number })),
    ),
    ...replicaNames('gateway', count).map((name, i) => ({
      name,
      service: 'gateway' as const,
      port: i === 0 ? opts.port : (ports.shift() as number),
    })),
  ];
  const addressOf = (service: BackService) =>
    replicas
      .filter((r) => r.service === service)
      .map((r) => `127.0.0.1:${r.port}`)
      .join(',');
  const grpcAddresses = {
    knowledge: addressOf('knowledge'),
    catalog: addressOf('catalog'),
    similarity: addressOf('similarity'),
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
    for (const { name } of [...replicas].reverse()) await children.find((c) => c.name === name)?.stop();
  };
  const launch = async (replica: ServiceReplica): Promise<RunningProcess> => {
    const { name, service } = replica;
    // --title rewrites the process's command line to the title, which is then the marker a
    // later run recognises it by (one per replica: kb-knowledge, kb-knowledge-2 …).
    const marker = `kb-${name}`;
    const node = opts.node ?? process.execPath;
    const args = [
      `--title=${marker}`,
      ...(opts.nodeArgs?.(service) ?? []),
      '--require',
      telemetry,
      join(checkoutDir(), 'services', service, 'dist', 'main.js'),
    ];
    const launched = opts.launcher ? opts.launcher(service, node, args) : { command: node, args };
    return startProcess({
      name,
      command: launched.command,
      args: launched.args,
      env: {
        ...launched.env, // the settings given to this run, and this process's environment, win
        ...common,
        // Its own port: the gateway's HTTP port, a back service's gRPC port.
        ...(service === 'gateway'
          ? { PORT: String(replica.port) }
          : { [`${service.toUpperCase()}_GRPC_PORT`]: String(replica.port) }),
        ...(service === 'similarity' ? { SERVICE_SYSTEM_SECRET: systemSecret } : {}),
        OTEL_SERVICE_NAME: `kb-${service}`,
        // Replicas of one service tell their telemetry apart by instance.
        ...(count > 1
          ? {
              OTEL_RESOURCE_ATTRIBUTES: withInstance(
                (common as Record<string, string | undefined>).OTEL_RESOURCE_ATTRIBUTES,
                name,
              ),
            }
          : {}),
      },
      cwd: checkoutDir(),
      logFile: join(opts.logDir, `${name}.log`),
      marker,
      // A restarted service's log goes on after the one that ended (the crash stays readable).
      append: true,
    });
  };
  try {
    for (const replica of replicas) {
      const child = await launch(replica);
      children.push(child);
      opts.onStarted?.(child);
    }
    await waitForReady(
      children,
      replicas.filter((r) => r.service === 'gateway').map((r) => r.port),
    );
  } catch (err) {
    await stop();
    throw err;
  }
  const restart = async (name: string): Promise<RunningProcess> => {
    const replica = replicas.find((r) => r.name === name);
    if (!replica) throw new Error(`no service process named ${name} (${replicas.map((r) => r.name).join(', ')})`);
    const child = await launch(replica);
    children.splice(
      children.findIndex((c) => c.name === name),
      1,
      child,
    );
    // Up once its own health says so (the gateway's /readyz would also wait on the others).
    const live = await waitUntil(() => child.exitReason() !== undefined || serviceAnswers(replica), 60_000, 250);
    if (!live || child.exitReason())
      throw new Error(
        `the ${name} service ${child.exitReason() ?? 'did not answer within 60 s'}; its log: ${child.logFile}`,
      );
    return child;
  };
  return {
    children,
    grpcAddresses,
    replicas,
    restart,
    secrets: { service: serviceSecret, system: systemSecret },
    stop,
  };
}

/** `service.instance.id=<name>` added to the OTEL_RESOURCE_ATTRIBUTES given (`k=v,k=v`). */
function withInstance(given: string | undefined, name: string): string {
  return [given, `service.instance.id=${name}`].filter(Boolean).join(',');
}

/** Waits for every gateway's /readyz; a service that exits meanwhile fails the start with its log's path. */
async function waitForReady(children: RunningProcess[], gatewayPorts: number[]): Promise<void> {
  let last = '';
  const ready = await waitUntil(
    async () => {
      const dead = children.find((c) => c.exitReason());
      if (dead)
        throw new Error(`the ${dead.name} service ${dead.exitReason()} during start-up; its log: ${dead.logFile}`);
      for (const port of gatewayPorts) {
        try {
          const res = await fetch(`http://127.0.0.1:${port}/readyz`);
          last = await res.text();
          if (res.status !== 200) return false;
        } catch {
          return false;
        }
      }
      return true;
    },
    120_000,
    500,
  );
  if (!ready) throw new Error(`the services did not become ready within 120 s; last /readyz answer: ${last}`);
}

/** Whether a started process accepts connections: a gateway on its HTTP port, a back service on its gRPC port. */
async function serviceAnswers({ service, port }: ServiceReplica): Promise<boolean> {
  if (service === 'gateway') {
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
