/**
 * Finding a container engine: the command line that builds images (`docker` or `podman`) and
 * the Docker-API socket testcontainers talks to (a Docker engine's, or the one `podman system
 * service` serves). Nothing is installed here; when there is no engine the caller says how to
 * get one.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { userInfo } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { checkoutDir, runDir } from '@kb/devstack';

export type EngineCli = 'docker' | 'podman';

/** The four images `npm run images` builds, named `<prefix><service>:<tag>`. */
export const IMAGE_SERVICES = ['gateway', 'knowledge', 'catalog', 'similarity'] as const;
export type ImageService = (typeof IMAGE_SERVICES)[number];

export function imageName(service: ImageService, env: NodeJS.ProcessEnv = process.env): string {
  return `${env.KB_IMAGE_PREFIX ?? 'kb-'}${service}:${env.KB_IMAGE_TAG ?? 'local'}`;
}

export const NO_ENGINE_HELP =
  'No container engine answers. Install Docker (https://docs.docker.com/engine/install/), or on Debian/Ubuntu ' +
  '`apt-get install podman runc` (see docker/README.md for the two settings podman needs on some machines), ' +
  'or name one with CONTAINER_ENGINE=docker|podman.';

/**
 * Open files a podman build step may hold: podman (buildah) gives RUN steps 1,024 when the
 * repository's containers.conf leaves out the default ulimits (which this machine kind refuses),
 * and `npm ci` opening its cache's index files comes close enough to that to fail now and then
 * with EMFILE. Raised to this process's own hard limit, the most a container here may be given
 * (more is refused), at most 65,536; undefined when that is no more than 1,024 or unknown.
 */
export function buildNofile(hardLimit: number | undefined): number | undefined {
  if (hardLimit === undefined || hardLimit <= 1024) return undefined;
  return Math.min(hardLimit, 65_536);
}

/** This process's hard limit on open files (undefined when it cannot be read); "unlimited" counts as Infinity. */
export function processHardNofile(): number | undefined {
  const r = spawnSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' });
  const out = r.stdout?.trim();
  if (r.status !== 0 || !out) return undefined;
  if (out === 'unlimited') return Infinity;
  const n = Number(out);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** The repository's podman settings (no default ulimits, the runc runtime); see docker/README.md. */
export function containersConfFile(): string {
  return join(checkoutDir(), 'docker', 'containers.conf');
}

// Where podman looks for a runtime named in containers.conf (its default runtime_paths), besides PATH.
const RUNC_PATHS = [
  '/usr/local/libexec/podman',
  '/usr/libexec/podman',
  '/usr/local/sbin',
  '/usr/sbin',
  '/sbin',
  '/bin',
];

function runcInstalled(env: NodeJS.ProcessEnv): boolean {
  const dirs = [...(env.PATH ?? '').split(delimiter).filter(Boolean), ...RUNC_PATHS];
  return dirs.some((dir) => existsSync(join(dir, 'runc')));
}

/**
 * The environment for every container-engine command this project runs (`podman info`, `build`,
 * `system service`, `kube play`, …): CONTAINERS_CONF points at docker/containers.conf unless it is
 * already set, so podman works on machines like CI without anyone setting it by hand. The file
 * names the runc runtime, so it is only used where runc is installed; elsewhere podman keeps its
 * own configuration. Docker ignores the variable.
 */
export function engineEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (env.CONTAINERS_CONF !== undefined || !runcInstalled(env)) return env;
  const file = containersConfFile();
  return existsSync(file) ? { ...env, CONTAINERS_CONF: file } : env;
}

function answers(cli: string): boolean {
  const r = spawnSync(cli, ['info'], { stdio: 'ignore', timeout: 20_000, env: engineEnv() });
  return r.status === 0;
}

/** `CONTAINER_ENGINE` when set; else `docker` when its engine answers; else `podman` when it runs. */
export function findEngineCli(env: NodeJS.ProcessEnv = process.env): EngineCli | undefined {
  const wanted = env.CONTAINER_ENGINE;
  if (wanted) {
    if (wanted !== 'docker' && wanted !== 'podman')
      throw new Error(`CONTAINER_ENGINE must be docker or podman, got "${wanted}"`);
    return answers(wanted) ? wanted : undefined;
  }
  // A `docker` client without an engine (as on this project's CI machines) does not count.
  if (answers('docker')) return 'docker';
  if (answers('podman')) return 'podman';
  return undefined;
}

/** GET /_ping on a Docker-API socket: true only for a 200. */
export function socketAnswers(socketPath: string, timeoutMs = 1_500): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/_ping', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** Where podman serves the Docker API: the system socket for root, the user's runtime dir otherwise. */
export function podmanSocketPath(): string {
  if (userInfo().uid === 0) return '/run/podman/podman.sock';
  return join(process.env.XDG_RUNTIME_DIR ?? `/run/user/${userInfo().uid}`, 'podman', 'podman.sock');
}

/**
 * The socket of this checkout's own `podman system service`, in its run-state folder: two checkouts
 * on one machine (or a podman service someone started without this project's settings) never share
 * it. Undefined when the path would be too long for a Unix socket.
 */
export function checkoutPodmanSocket(): string | undefined {
  const path = join(runDir(), 'podman.sock');
  return path.length <= 100 ? path : undefined;
}

export interface DockerApi {
  /** The value for DOCKER_HOST, e.g. unix:///run/podman/podman.sock. */
  dockerHost: string;
  /** Set when this call started `podman system service`; stops it. */
  stop?: () => void;
}

/**
 * A Docker API for testcontainers: DOCKER_HOST when it answers, a Docker engine's socket, or
 * podman's: this checkout's own `podman system service` (started here, with engineEnv's settings,
 * when podman is installed and it is not serving), else podman's usual socket when something serves
 * it. Undefined when none can be had.
 */
export async function findDockerApi(env: NodeJS.ProcessEnv = process.env): Promise<DockerApi | undefined> {
  if (env.DOCKER_HOST) {
    const url = new URL(env.DOCKER_HOST);
    if (url.protocol !== 'unix:' || (await socketAnswers(url.pathname))) return { dockerHost: env.DOCKER_HOST };
    return undefined;
  }
  const docker = '/var/run/docker.sock';
  if (existsSync(docker) && (await socketAnswers(docker))) return { dockerHost: `unix://${docker}` };
  const own = checkoutPodmanSocket();
  const shared = podmanSocketPath();
  if (own && existsSync(own) && (await socketAnswers(own))) return { dockerHost: `unix://${own}` };
  if (spawnSync('podman', ['--version'], { stdio: 'ignore' }).status === 0) {
    if (own) {
      rmSync(own, { force: true });
      const started = await startPodmanService(own, env);
      if (started) return started;
    }
    if (existsSync(shared) && (await socketAnswers(shared))) return { dockerHost: `unix://${shared}` };
    if (!own) return startPodmanService(shared, env);
    return undefined;
  }
  if (existsSync(shared) && (await socketAnswers(shared))) return { dockerHost: `unix://${shared}` };
  return undefined;
}

/** `podman system service` on `socket`, once it answers; undefined when it does not within 15 s. */
async function startPodmanService(socket: string, env: NodeJS.ProcessEnv): Promise<DockerApi | undefined> {
  mkdirSync(dirname(socket), { recursive: true });
  // The containers it runs for testcontainers take their settings from this process's environment.
  const service = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], {
    stdio: 'ignore',
    detached: true,
    env: engineEnv(env),
  });
  service.unref();
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (await socketAnswers(socket)) {
      return {
        dockerHost: `unix://${socket}`,
        stop: () => {
          try {
            if (service.pid) process.kill(-service.pid, 'SIGTERM');
          } catch {
            /* already gone */
          }
        },
      };
    }
    if (service.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  service.kill();
  return undefined;
}

/** Whether the engine behind `cli` has an image of this name. */
export function imageExists(cli: EngineCli, image: string): boolean {
  return spawnSync(cli, ['image', 'inspect', image], { stdio: 'ignore', env: engineEnv() }).status === 0;
}
