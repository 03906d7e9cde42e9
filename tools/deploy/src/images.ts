/**
 * `npm run images`: the four service images from docker/Dockerfile, with whichever engine is
 * here (Docker, or podman). The build base is the official slim Node 20 image when it can be
 * pulled; otherwise docker/node-base.sh assembles an equivalent one from Debian's packages and
 * the npm registry. The embedding model is fetched (cached) and staged in docker/model/ so the
 * similarity image carries it and runs offline.
 *
 *   NODE_IMAGE=<image>        build base to use as is (skips the pull and the assembly)
 *   KB_IMAGE_PREFIX, KB_IMAGE_TAG   names: <prefix><service>:<tag> (default kb-<service>:local)
 *   CONTAINER_ENGINE=docker|podman   which engine, when both are installed
 *   npm run images -- gateway knowledge   only these
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { checkoutDir, ensureEmbeddingModel } from '@kb/devstack';
import {
  IMAGE_SERVICES,
  NO_ENGINE_HELP,
  engineEnv,
  findEngineCli,
  imageExists,
  imageName,
  type EngineCli,
  type ImageService,
} from './container-engine';

const OFFICIAL_NODE_IMAGE = 'node:20-bookworm-slim';
const log = (msg: string) => process.stdout.write(`[images] ${msg}\n`);

function run(cli: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cli, args, { stdio: 'inherit', env: engineEnv(), ...opts });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${cli} ${args.slice(0, 2).join(' ')} … exited with ${code}`)),
    );
  });
}

/** The official image if present or pullable; else the locally assembled equivalent. */
async function buildBase(engine: EngineCli, root: string): Promise<string> {
  if (process.env.NODE_IMAGE) return process.env.NODE_IMAGE;
  if (imageExists(engine, OFFICIAL_NODE_IMAGE)) return OFFICIAL_NODE_IMAGE;
  const pull = spawnSync(engine, ['pull', '-q', OFFICIAL_NODE_IMAGE], {
    encoding: 'utf8',
    timeout: 300_000,
    env: engineEnv(),
  });
  if (pull.status === 0) return OFFICIAL_NODE_IMAGE;
  const reason = (pull.stderr || '').trim().split('\n').at(-1) ?? '';
  log(
    `${OFFICIAL_NODE_IMAGE} cannot be pulled (${reason.slice(0, 160)}); assembling an equivalent base with docker/node-base.sh`,
  );
  const base = process.env.KB_NODE_BASE_IMAGE ?? 'localhost/kb-node:20.20.2';
  await run('bash', [join(root, 'docker', 'node-base.sh'), engine], {
    env: { ...engineEnv(), KB_NODE_BASE_IMAGE: base },
  });
  return base;
}

/** Engine-specific flags: host networking for the build's downloads, and a TLS proxy's CA where the host has one. */
function buildFlags(engine: EngineCli): string[] {
  const flags = ['--network', 'host'];
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  // BuildKit has no build-time volumes; the podman (buildah) build mounts the host's CA bundle.
  if (ca && engine === 'podman')
    flags.push(
      '-v',
      `${ca}:/etc/ssl/certs/build-host-ca.crt:ro`,
      '--build-arg',
      'NODE_EXTRA_CA_CERTS=/etc/ssl/certs/build-host-ca.crt',
    );
  return flags;
}

function imageSize(engine: EngineCli, image: string): number {
  const r = spawnSync(engine, ['image', 'inspect', image, '--format', '{{.Size}}'], {
    encoding: 'utf8',
    env: engineEnv(),
  });
  return Number(r.stdout.trim());
}

/** Sizes of the two layers that make an image: the shared system part and the service's /app. */
function layerSizes(engine: EngineCli, image: string): string {
  const r = spawnSync(engine, ['history', '--no-trunc', '--format', '{{.Size}}\t{{.CreatedBy}}', image], {
    encoding: 'utf8',
    env: engineEnv(),
  });
  const rows = r.stdout
    .trim()
    .split('\n')
    .map((l) => l.split('\t'));
  // Docker names the copy's source (COPY /rootfs /), podman only its destination (COPY dir:… in /).
  const pick = (dest: RegExp) => rows.find(([, by]) => dest.test(by?.trim() ?? ''))?.[0]?.trim() ?? '?';
  const model = image.includes('similarity') ? ', model' : '';
  const system = pick(/(\/rootfs \/|in \/)( #.*)?$/);
  const app = pick(/(\/app \/app|in \/app)( #.*)?$/);
  return `system (node, libraries, CA, zoneinfo) ${system}, app (dependencies, code${model}) ${app}`;
}

async function main(): Promise<void> {
  const root = checkoutDir();
  const wanted = process.argv.slice(2);
  const bad = wanted.filter((s) => !(IMAGE_SERVICES as readonly string[]).includes(s));
  if (bad.length) {
    process.stderr.write(`npm run images: unknown service ${bad.join(', ')} (one of ${IMAGE_SERVICES.join(', ')})\n`);
    process.exit(2);
  }
  const services = (wanted.length ? wanted : IMAGE_SERVICES) as ImageService[];
  const engine = findEngineCli();
  if (!engine) {
    process.stderr.write(`npm run images: ${NO_ENGINE_HELP}\n`);
    process.exit(2);
  }
  const started = Date.now();
  log(`engine: ${engine}`);
  const base = await buildBase(engine, root);
  log(`build base: ${base}`);
  if (services.includes('similarity')) {
    const model = await ensureEmbeddingModel(log);
    const staged = join(root, 'docker', 'model');
    mkdirSync(staged, { recursive: true });
    copyFileSync(model.modelPath, join(staged, 'model.onnx'));
    copyFileSync(model.tokenizerPath, join(staged, 'tokenizer.json'));
    log(`embedding model ${model.name} staged in docker/model/`);
  }
  for (const service of services) {
    const image = imageName(service);
    const t0 = Date.now();
    log(`building ${image} ...`);
    await run(
      engine,
      [
        'build',
        ...buildFlags(engine),
        '-f',
        'docker/Dockerfile',
        '--build-arg',
        `NODE_IMAGE=${base}`,
        '--build-arg',
        `SERVICE=${service}`,
        '-t',
        image,
        '.',
      ],
      { cwd: root },
    );
    log(`built ${image} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s:`);
  for (const service of services) {
    const image = imageName(service);
    log(
      `  ${image.padEnd(24)} ${(imageSize(engine, image) / 1e6).toFixed(0).padStart(4)} MB  (${layerSizes(engine, image)})`,
    );
  }
}

main().catch((err: Error) => {
  process.stderr.write(`npm run images: ${err.message}\n`);
  process.exit(1);
});
