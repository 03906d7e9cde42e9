/**
 * The set-up of every project that needs the real backends (e2e, containers, deploy): starts the
 * MongoDB-compatible server and Elasticsearch (found as docs/operations.md, "Backends: three paths, one
 * code path", says) and fetches the embedding model. Test workers read the addresses from the environment.
 *
 * Jest runs each project's set-up in this one parent process, so the backends are kept on
 * globalThis and a second call reuses them: they start once per run, however many projects run.
 * global-teardown.ts stops them.
 *
 * findContainers (called by container-setup.ts, for test/containers/ and test/deploy/) finds a
 * container engine: a Docker-API socket (starting `podman system service` when podman is
 * installed and not serving) and the images `npm run images` builds. Without them those tests are
 * skipped with the reason, unless KB_REQUIRE_CONTAINER_TESTS=1 (CI), where the run fails instead.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { IMAGE_SERVICES, NO_ENGINE_HELP, findDockerApi, imageName } from '@kb/deploy';
import { ensureEmbeddingModel, startBackends } from '@kb/devstack';
import type { GivenBackends } from './given-backends';
import { testRun } from './test-names';

type Globals = {
  __kbBackends?: { stop(): Promise<void> };
  __kbGiven?: { given: GivenBackends; run: string };
  __kbBackendsReady?: Promise<void>;
  __kbDockerApi?: { stop?: () => void };
};

export default function globalSetup(): Promise<void> {
  const globals = globalThis as Globals;
  globals.__kbBackendsReady ??= startTestBackends();
  return globals.__kbBackendsReady;
}

async function startTestBackends(): Promise<void> {
  const log = (msg: string) => process.stdout.write(`[test backends] ${msg}\n`);
  const started = Date.now();
  const model = await ensureEmbeddingModel(log);
  // KB_ES_NODES=3: Elasticsearch as a local cluster of three nodes (ELASTICSEARCH_URL lists them all).
  const backends = await startBackends({ persistent: false, log, elasticsearchNodes: elasticsearchNodesWanted() });
  process.env.MONGODB_URI = backends.mongoUri;
  process.env.ELASTICSEARCH_URL = backends.elasticsearchUrl;
  process.env.KB_BACKENDS_MODE = backends.mode;
  process.env.EMBEDDING_MODEL_DIR = model.dir;
  process.env.EMBEDDING_MODEL_NAME = model.name;
  process.env.EMBEDDING_DIMS = String(model.dims);
  // The test install's secrets (docs/architecture.md, "Service-to-service authentication"): every
  // service started by a test, in-process or as a process, reads them from the environment.
  process.env.SERVICE_AUTH_SECRET ||= randomBytes(32).toString('base64url');
  process.env.SERVICE_SYSTEM_SECRET ||= randomBytes(32).toString('base64url');
  (globalThis as Globals).__kbBackends = backends;
  // The run's id in every name a test makes (test-names.ts): the workers inherit it. Servers given
  // by URL outlive the run, so what it made there is removed at its end (given-backends.ts).
  const run = testRun();
  const given: GivenBackends = {
    ...(backends.sources.mongo === 'env' ? { mongoUri: backends.mongoUri } : {}),
    ...(backends.sources.elasticsearch === 'env' ? { elasticsearchUrl: backends.elasticsearchUrl } : {}),
  };
  if (given.mongoUri || given.elasticsearchUrl) (globalThis as Globals).__kbGiven = { given, run };
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  log(
    `${backends.mode} backends ready in ${seconds} s (MongoDB ${backends.mongoUri}, Elasticsearch ${backends.elasticsearchUrl})`,
  );
}

/** KB_ES_NODES: how many Elasticsearch nodes the test backends run (default 1; 1 to 5). */
function elasticsearchNodesWanted(): number {
  const given = process.env.KB_ES_NODES || '1';
  const n = Number(given);
  if (!Number.isInteger(n) || n < 1 || n > 5)
    throw new Error(`KB_ES_NODES must be a whole number from 1 to 5, got "${given}"`);
  return n;
}

export async function findContainers(log: (msg: string) => void): Promise<void> {
  const api = await findDockerApi().catch(() => undefined);
  let skip: string | undefined;
  if (!api) {
    skip = NO_ENGINE_HELP;
  } else {
    (globalThis as Globals).__kbDockerApi = api;
    process.env.KB_DOCKER_HOST = api.dockerHost;
    const missing = [];
    for (const service of IMAGE_SERVICES)
      if (!(await imageOnEngine(api.dockerHost, imageName(service)))) missing.push(imageName(service));
    if (missing.length)
      skip = `the engine at ${api.dockerHost} has no ${missing.join(', ')}: build them with \`npm run images\``;
  }
  if (skip) {
    if (process.env.KB_REQUIRE_CONTAINER_TESTS === '1')
      throw new Error(`KB_REQUIRE_CONTAINER_TESTS=1 but the container tests cannot run: ${skip}`);
    process.env.KB_CONTAINERS_SKIP = skip;
    log(`container tests will be skipped: ${skip}`);
  } else {
    log(`container tests use the engine at ${api?.dockerHost}`);
  }
}

/** GET /images/<name>/json on the Docker API: 200 when the engine has the image. */
function imageOnEngine(dockerHost: string, image: string): Promise<boolean> {
  const url = new URL(dockerHost);
  const where =
    url.protocol === 'unix:' ? { socketPath: url.pathname } : { host: url.hostname, port: Number(url.port) };
  return new Promise((resolve) => {
    const req = request({ ...where, path: `/images/${encodeURIComponent(image)}/json`, timeout: 5_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}
