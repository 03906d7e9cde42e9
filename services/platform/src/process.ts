import { createLogger, type Logger } from './logging';
import { ConfigError } from './config';

/**
 * The shutdown budget, as the chart's `terminationGracePeriodSeconds` (20 s = 5 s preStop + this
 * + margin) assumes it: in-flight calls get DRAIN_MS to finish, buffered spans TELEMETRY_FLUSH_MS,
 * and the process exits by SHUTDOWN_BOUND_MS whatever happens.
 */
export const SHUTDOWN_BOUND_MS = 10_000;
export const TELEMETRY_FLUSH_MS = 2_000;
export const DRAIN_MS = SHUTDOWN_BOUND_MS - TELEMETRY_FLUSH_MS;

/** Exports the spans still buffered (the preloaded SDK's, when there is one) before the process exits. */
async function flushTelemetry(): Promise<void> {
  const shutdown = (globalThis as Record<symbol, unknown>)[Symbol.for('kb.shutdownTelemetry')];
  if (typeof shutdown !== 'function') return;
  // An unreachable collector must not hold the exit past the grace period.
  await Promise.race([
    (shutdown as () => Promise<void>)(),
    new Promise((r) => setTimeout(r, TELEMETRY_FLUSH_MS).unref()),
  ]);
}

/**
 * Process-level wiring shared by every service entry point: log and exit on an unhandled
 * error, and run `stop` once on SIGTERM/SIGINT (exit code 0 after a clean stop).
 */
export function handleProcessSignals(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), SHUTDOWN_BOUND_MS);
    force.unref();
    stop()
      .then(flushTelemetry)
      .then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, 'error during shutdown');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.on('unhandledRejection', (reason) => {
    logger.error({ err: reason }, 'unhandled promise rejection');
  });
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception');
    process.exit(1);
  });
}

/**
 * The whole of a service's entry point: read the configuration (a bad variable stops the
 * process with exit code 2 and a message naming it, never a stack trace), start the service,
 * stop it cleanly on SIGTERM/SIGINT.
 */
export function runService<C extends { LOG_LEVEL: string }>(
  name: string,
  loadConfig: () => C,
  start: (config: C, logger: Logger) => Promise<{ stop(): Promise<void> }>,
): void {
  let config: C;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`${name}: ${err instanceof ConfigError ? err.message : (err as Error).message}\n`);
    process.exit(2);
  }
  const logger = createLogger(name, config.LOG_LEVEL);
  start(config, logger).then(
    (service) => handleProcessSignals(logger, () => service.stop()),
    (err: Error) => {
      // A setting found wrong only at start (a connection string the driver cannot parse) is
      // still a configuration error: the same one line and exit code as one found at load.
      if (err instanceof ConfigError) {
        process.stderr.write(`${name}: ${err.message}\n`);
        process.exit(2);
      }
      logger.fatal({ err: err.message }, `${name} failed to start`);
      process.stderr.write(`${name}: ${err.message}\n`);
      process.exit(1);
    },
  );
}
