/**
 * `npm run images`: the four service images from docker/Dockerfile, with whichever engine is
 * here (Docker, or podman). The build base, whose Node the images carry:
 *   1. NODE_IMAGE when set (e.g. the official image pinned by digest, node:24…@sha256:…);
 *   2. else, where apt-get is (Debian or a derivative), docker/node-base.sh's assembly of exactly
 *      what docker/node-base.lock pins (versions and checksums), so every build gets the same base;
 *   3. else the official slim image of the same Node version, pulled by its tag.
 * The embedding model is fetched (cached) and staged in docker/model/ so the similarity image
 * carries it and runs offline.
 *
 *   NODE_IMAGE=<image>        build base to use as is (skips the assembly and the pull)
 *   KB_IMAGE_PREFIX, KB_IMAGE_TAG   names: <prefix><service>:<tag> (default kb-<service>:local)
 *   CONTAINER_ENGINE=docker|podman   which engine, when both are installed
 *   npm run images -- gateway knowledge   only these
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { checkoutDir, ensureEmbeddingModel, pinnedNode } from '@kb/devstack';
import {
  IMAGE_SERVICES,
  NO_ENGINE_HELP,
  buildNofile,
  processHardNofile,
  engineEnv,
  findEngineCli,
  imageExists,
  imageName,
  type EngineCli,
  type ImageService,
} from './container-engine';

/** The Node version docker/node-base.lock pins: the one the images run (Node 24 LTS). */
function pinnedNodeVersion(root: string): string {
  const pin = pinnedNode(root);
  if (!pin) throw new Error('docker/node-base.lock pins no node-linux-<arch> package');
  return pin.version;
}
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

/** NODE_IMAGE, else the base assembled from docker/node-base.lock, else the official image of the same Node. */
async function buildBase(engine: EngineCli, root: string): Promise<string> {
  if (process.env.NODE_IMAGE) return process.env.NODE_IMAGE;
  const script = join(root, 'docker', 'node-base.sh');
  if (spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0) {
    const name = spawnSync('bash', [script, '--image-name'], { encoding: 'utf8', env: engineEnv() });
    if (name.status !== 0) throw new Error(`docker/node-base.sh --image-name: ${name.stderr.trim()}`);
    const base = name.stdout.trim();
    log(`assembling the build base ${base} from docker/node-base.lock (pinned versions and checksums)`);
    await run('bash', [script, engine], { env: { ...engineEnv(), KB_NODE_BASE_IMAGE: base } });
    return base;
  }
  const official = `node:${pinnedNodeVersion(root)}-bookworm-slim`;
  log(
    `no apt-get here to assemble the pinned base: using ${official} (pinned by tag only; set NODE_IMAGE to pin a digest)`,
  );
  if (imageExists(engine, official)) return official;
  const pull = spawnSync(engine, ['pull', '-q', official], { encoding: 'utf8', timeout: 300_000, env: engineEnv() });
  if (pull.status !== 0)
    throw new Error(`${official} cannot be pulled: ${(pull.stderr || '').trim().split('\n').at(-1)}`);
  return official;
}

/** Engine-specific flags: host networking for the build's downloads, and a TLS proxy's CA where the host has one. */
function buildFlags(engine: EngineCli): string[] {
  const flags = ['--network', 'host'];
  const nofile = engine === 'podman' ? buildNofile(processHardNofile()) : undefined;
  if (nofile !== undefined) flags.push('--ulimit', `nofile=${nofile}:${nofile}`);
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
