/**
 * A service run the way its image runs it: `node --require @kb/common/dist/telemetry.js
 * services/<name>/dist/main.js`, configured only by environment variables. For the tests that
 * need what only a real process has (the OpenTelemetry preload, exporters, SIGTERM).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');
export const TELEMETRY_PRELOAD = path.join(ROOT, 'services/common/dist/telemetry.js');

export type ServiceName = 'gateway' | 'knowledge' | 'catalog' | 'similarity';

/** The run's own telemetry settings, left out so that each test names the exporters it wants. */
const TELEMETRY_VARIABLES = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_TRACES_EXPORTER', 'OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG'];

export interface ServiceProcess {
  readonly child: ChildProcess;
  /** stdout and stderr so far (the last `keepChars` characters). */
  log(): string;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
  /** SIGTERM (or `signal`), then waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export function startServiceProcess(service: ServiceName, env: Record<string, string>, options: { keepChars?: number } = {}): ServiceProcess {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !TELEMETRY_VARIABLES.includes(key)));
  const child = spawn(process.execPath, ['--require', TELEMETRY_PRELOAD, path.join(ROOT, 'services', service, 'dist', 'main.js')], {
    env: { ...inherited, GRPC_HOST: '127.0.0.1', OTEL_SERVICE_NAME: `kb-${service}`, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
