/**
 * A service run the way its image runs it: `node --require @kb/platform/telemetry
 * services/<name>/dist/main.js`, configured only by environment variables. For the tests that
 * need what only a real process has (the OpenTelemetry preload, exporters, SIGTERM).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { freePorts } from '@kb/devstack';
import { httpRequest } from './http';

export const ROOT = path.resolve(__dirname, '../..');
export const TELEMETRY_PRELOAD = path.join(ROOT, 'services/platform/telemetry.js');

export type ServiceName = 'gateway' | 'knowledge' | 'catalog' | 'similarity';

/** The run's own telemetry settings, left out so that each test names the exporters it wants. */
const TELEMETRY_VARIABLES = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_TRACES_EXPORTER',
  'OTEL_TRACES_SAMPLER',
  'OTEL_TRACES_SAMPLER_ARG',
];

export interface ServiceProcess {
  readonly child: ChildProcess;
  /** stdout and stderr so far (the last `keepChars` characters). */
  log(): string;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
  /** SIGTERM (or `signal`), then waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export function startServiceProcess(
  service: ServiceName,
  env: Record<string, string>,
  options: { keepChars?: number } = {},
): ServiceProcess {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !TELEMETRY_VARIABLES.includes(key)),
  );
  // The system credential is the similarity service's alone, as in the chart.
  if (service !== 'similarity') delete inherited.SERVICE_SYSTEM_SECRET;
  const child = spawn(
    process.execPath,
    ['--require', TELEMETRY_PRELOAD, path.join(ROOT, 'services', service, 'dist', 'main.js')],
    {
      env: { ...inherited, GRPC_HOST: '127.0.0.1', OTEL_SERVICE_NAME: `kb-${service}`, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const keepChars = options.keepChars ?? 100_000;
  let log = '';
  const keep = (chunk: Buffer) => (log = (log + chunk.toString()).slice(-keepChars));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
  return {
    child,
    log: () => log,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** The four services as processes on free loopback ports, one or more gateways in front. */
export interface ProcessStack {
  readonly processes: Record<string, ServiceProcess>;
  /** Each gateway's HTTP port, by the name it was given. */
  readonly gatewayPorts: Record<string, number>;
  /** Every process's log so far, for a failure message. */
  logs(): string;
  stop(): Promise<void>;
}

export async function startProcessStack(options: {
  mongoUri: string;
  indexPrefix: string;
  /** Elasticsearch as the similarity service reaches it (a proxy, for an outage test); default the run's. */
  elasticsearchUrl?: string;
  /** Extra settings of every process of a service (metrics ports, log level). */
  env?: (service: ServiceName) => Record<string, string>;
  /** Extra settings of knowledge and catalog (indexer interval, write bound). */
  indexing?: Record<string, string>;
  /** Gateways by name, each with its own extra settings. */
  gateways: Record<string, Record<string, string>>;
  keepChars?: number;
  readyWithinMs: number;
  /** Ports the caller has chosen for its own use (metrics ports): the stack's are none of them. */
  avoidPorts?: readonly number[];
}): Promise<ProcessStack> {
  // Every port chosen before any process starts, all at once, so each is distinct (a gateway was
  // once given the similarity service's gRPC port), and none of the ports the caller holds for its own use.
  const gatewayNames = Object.keys(options.gateways);
  const picked = await freePorts(3 + gatewayNames.length, options.avoidPorts);
  const grpc = { similarity: picked[0]!, knowledge: picked[1]!, catalog: picked[2]! };
  const gatewayPorts: Record<string, number> = {};
  gatewayNames.forEach((name, i) => (gatewayPorts[name] = picked[3 + i]!));
  const address = (service: keyof typeof grpc) => `127.0.0.1:${grpc[service]}`;
  const processes: Record<string, ServiceProcess> = {};
  const start = (name: string, service: ServiceName, env: Record<string, string>) =>
    (processes[name] = startServiceProcess(
      service,
      { ...options.env?.(service), ...env },
      { keepChars: options.keepChars },
    ));
  const indexing = { MONGODB_URI: options.mongoUri, SIMILARITY_GRPC_ADDR: address('similarity'), ...options.indexing };
  start('similarity', 'similarity', {
    SIMILARITY_GRPC_PORT: String(grpc.similarity),
    ELASTICSEARCH_URL: options.elasticsearchUrl ?? (process.env.ELASTICSEARCH_URL as string),
    ELASTICSEARCH_INDEX_PREFIX: options.indexPrefix,
  });
  start('knowledge', 'knowledge', { ...indexing, KNOWLEDGE_GRPC_PORT: String(grpc.knowledge) });
  start('catalog', 'catalog', { ...indexing, CATALOG_GRPC_PORT: String(grpc.catalog) });
  for (const [name, env] of Object.entries(options.gateways)) {
    start(name, 'gateway', {
      PORT: String(gatewayPorts[name]),
      HOST: '127.0.0.1',
      TENANT_MODE: 'host',
      KNOWLEDGE_GRPC_ADDR: address('knowledge'),
      CATALOG_GRPC_ADDR: address('catalog'),
      SIMILARITY_GRPC_ADDR: address('similarity'),
      ...env,
    });
  }
  const stack: ProcessStack = {
    processes,
    gatewayPorts,
    logs: () =>
      JSON.stringify(Object.fromEntries(Object.entries(processes).map(([name, p]) => [name, p.log()])), null, 1),
    stop: async () => void (await Promise.all(Object.values(processes).map((p) => p.stop()))),
  };
  const deadline = Date.now() + options.readyWithinMs;
  for (const port of Object.values(gatewayPorts)) {
    let ready = 0;
    while (ready !== 200 && Date.now() < deadline) {
      // Every dependency up ("ready"), not only the gateway able to serve ("degraded" is 200 too).
      ready = await httpRequest(port, 'localhost', '/readyz').then(
        (r) => (r.json?.status === 'ready' ? r.status : 0),
        () => 0,
      );
      if (ready !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    if (ready !== 200) {
      const logs = stack.logs();
      await stack.stop();
      throw new Error(`the services did not become ready: ${logs}`);
    }
  }
  return stack;
}
