/**
 * The service images run as containers through testcontainers (a Docker engine, or podman's
 * Docker-API socket), with host networking so every connection stays on 127.0.0.1 and the
 * containers reach the test run's real backends there. container-setup.ts finds the engine and
 * the images; when either is missing it sets KB_CONTAINERS_SKIP to the reason.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import type { GenericContainer, StartedTestContainer } from 'testcontainers';
import { imageName, type ImageService } from '@kb/deploy';

export { imageName };

/** Why the container tests cannot run here, or undefined when they can. */
export function containersSkipReason(): string | undefined {
  return (
    process.env.KB_CONTAINERS_SKIP ||
    (process.env.KB_DOCKER_HOST ? undefined : 'no container engine was looked for (global set-up did not run)')
  );
}

type Testcontainers = typeof import('testcontainers');
let loaded: Testcontainers | undefined;

/**
 * testcontainers, pointed at the engine container-setup found; Ryuk off (its image cannot be pulled
 * offline: tests remove their containers).
 */
export async function testcontainers(): Promise<Testcontainers> {
  if (loaded) return loaded;
  process.env.DOCKER_HOST = process.env.KB_DOCKER_HOST;
  process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
  process.env.TESTCONTAINERS_HOST_OVERRIDE = '127.0.0.1';
  loaded = await import('testcontainers');
  return loaded;
}

/** The test install's secrets (global-setup.ts) as a container of `service` gets them: the system one only in similarity. */
function installSecrets(service: ImageService): Record<string, string> {
  const secrets: Record<string, string> = { SERVICE_AUTH_SECRET: process.env.SERVICE_AUTH_SECRET as string };
  if (service === 'similarity') secrets.SERVICE_SYSTEM_SECRET = process.env.SERVICE_SYSTEM_SECRET as string;
  return secrets;
}

/**
 * The hardening a Kubernetes pod of this product gets: read-only root filesystem, every
 * capability dropped, no privilege escalation; nothing writable is mounted (not even /tmp), so a
 * service that needed to write anywhere would fail here. Host networking (see the file comment).
 */
export async function hardened(service: ImageService, env: Record<string, string>): Promise<GenericContainer> {
  const { GenericContainer: Container } = await testcontainers();
  class Hardened extends Container {
    constructor() {
      super(imageName(service));
      this.hostConfig.ReadonlyRootfs = true;
      // podman mounts a writable /tmp on read-only containers unless told otherwise: a
      // read-only one shows that the services need no writable place at all.
      this.hostConfig.Tmpfs = { '/tmp': 'ro' };
      this.hostConfig.CapDrop = ['ALL'];
      this.hostConfig.SecurityOpt = ['no-new-privileges'];
    }
  }
  return new Hardened()
    .withNetworkMode('host')
    .withEnvironment({ LOG_LEVEL: 'info', ...installSecrets(service), ...env })
    .withPullPolicy({ shouldPull: () => false });
}

export interface RunningService {
  service: ImageService;
  container: StartedTestContainer;
  /** Everything the container wrote to stdout and stderr so far. */
  output(): string;
}

/** Starts a service image and waits for its "listening" log line. */
export async function startService(service: ImageService, env: Record<string, string>): Promise<RunningService> {
  const { Wait } = await testcontainers();
  let output = '';
  try {
    const container = await (
      await hardened(service, env)
    )
      .withLogConsumer((stream) => stream.on('data', (chunk: Buffer | string) => (output += chunk.toString())))
      .withWaitStrategy(Wait.forLogMessage(/listening/))
      .withStartupTimeout(60_000)
      .start();
    return { service, container, output: () => output };
  } catch (err) {
    throw new Error(`${service} container did not start: ${(err as Error).message}\n${output.slice(-2000)}`);
  }
}

/** Runs an image to its end (a start-up that is meant to fail); its exit code and output. */
export async function runToExit(
  service: ImageService,
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<{ code: number; output: string }> {
  const { getContainerRuntimeClient } = await testcontainers();
  const client = await getContainerRuntimeClient();
  const container = await client.container.create({
    Image: imageName(service),
    // The install's secrets are valid, so the failure is the variable under test's.
    Env: Object.entries({ ...installSecrets(service), ...env }).map(([k, v]) => `${k}=${v}`),
    HostConfig: { NetworkMode: 'host', ReadonlyRootfs: true, Tmpfs: { '/tmp': 'ro' }, CapDrop: ['ALL'] },
  });
  try {
    await client.container.start(container);
    const exited = await withTimeout(
      container.wait() as Promise<{ StatusCode: number }>,
      timeoutMs,
      `${service} did not exit within ${timeoutMs} ms`,
    );
    const logs = (await container.logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
    // Docker's multiplexed log frames start with 8 header bytes; the text in between is intact.
    return { code: exited.StatusCode, output: logs.toString('utf8').replace(/[\x00-\x08]/g, '') };
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Sends a signal to a running container and resolves to its exit code once it has stopped. */
export async function signalAndWait(running: RunningService, signal: string, timeoutMs = 30_000): Promise<number> {
  const { getContainerRuntimeClient } = await testcontainers();
  const client = await getContainerRuntimeClient();
  const container = client.container.getById(running.container.getId());
  await container.kill({ signal });
  const exited = await withTimeout(
    container.wait() as Promise<{ StatusCode: number }>,
    timeoutMs,
    `${running.service} did not exit within ${timeoutMs} ms of ${signal}`,
  );
  // Stopped by a signal, it is not stopped (and removed) by the file's clean-up: remove it here.
  await container.remove({ force: true }).catch(() => undefined);
  return exited.StatusCode;
}

/** Runs a command inside a running container (no shell there: argv is run as is). */
export async function execIn(
  running: RunningService,
  argv: string[],
  env: Record<string, string> = {},
): Promise<{ exitCode: number; output: string }> {
  const result = await running.container.exec(argv, { env });
  return { exitCode: result.exitCode, output: result.output };
}

type HealthStatus = 'SERVING' | 'NOT_SERVING' | 'UNKNOWN' | 'SERVICE_UNKNOWN' | 'UNREACHABLE';

/** grpc.health.v1 Check of a health name ("" = the whole server) at an address. */
export function grpcHealth(address: string, service = ''): Promise<HealthStatus> {
  const def = protoLoader.loadSync(healthProtoPath, { keepCase: true, enums: String, defaults: true });
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    grpc: {
      health: {
        v1: {
          Health: new (a: string, c: grpc.ChannelCredentials) => grpc.Client & { Check: (...args: any[]) => void };
        };
      };
    };
  };
  const client = new pkg.grpc.health.v1.Health(address, grpc.credentials.createInsecure());
  return new Promise((resolve) => {
    client.Check(
      { service },
      { deadline: new Date(Date.now() + 2_000) },
      (err: grpc.ServiceError | null, res?: { status: HealthStatus }) => {
        client.close();
        resolve(err ? 'UNREACHABLE' : (res?.status ?? 'UNKNOWN'));
      },
    );
  });
}

/** Polls until `check` returns true, or fails with `what` after `timeoutMs`. */
export async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
