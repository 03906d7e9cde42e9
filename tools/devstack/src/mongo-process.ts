import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cacheDir } from './cache';
import { backendDir, startUntilReady, type LocalBackend, type LocalProcessOptions } from './local-backend';
import { findJava17 } from './java';
import { freePort } from './ports';
import { heapSetting } from './heap';
import type { ProcessSpec } from './process-group';

const LAUNCHER = resolve(__dirname, '..', 'java', 'MongoServerMain.java');

/**
 * Starts mongo-java-server (jars in `libDir`) on a free loopback port: in memory when throw-away,
 * else with its H2 backend in a file. It speaks the MongoDB wire protocol but has no sessions,
 * so no multi-document transactions.
 */
export async function startMongoProcess(libDir: string, opts: LocalProcessOptions): Promise<LocalBackend> {
  const { log } = opts;
  const jdk = findJava17();
  const { dir, temporary } = backendDir('mongo', cacheDir(), opts);

  const port = await freePort();
  const marker = `kb-devstack-${randomBytes(6).toString('hex')}`;
  const uri = `mongodb://127.0.0.1:${port}/`;
  const h2File = join(dir, 'mongo.h2');
  log(`Starting the MongoDB-compatible server on ${uri} (data: ${temporary ? 'in memory' : h2File}) ...`);
  const started = Date.now();
  const spec: ProcessSpec = {
    name: 'mongo',
    command: jdk.java,
    args: [
      // KB_MONGO_HEAP_MB: more for a large in-memory data set (the benchmark's scale mode).
      `-Xmx${heapSetting('KB_MONGO_HEAP_MB', 512)}m`,
      '-XX:+UseSerialGC',
      // Without a logging backend SLF4J prints three warning lines; they only clutter error reports.
      '-Dslf4j.internal.verbosity=ERROR',
      `-Dkb.devstack=${marker}`,
      '-cp',
      join(libDir, '*'),
      LAUNCHER,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      ...(temporary ? [] : ['--h2', h2File]),
    ],
    env: process.env,
    cwd: dir,
    logFile: join(dir, 'mongo.out.log'),
    marker,
  };
  const { stop, supervised } = await startUntilReady({
    what: 'The MongoDB-compatible server',
    spec,
    dir,
    temporary,
    opts,
    ready: (proc, since) =>
      readFileSync(proc.logFile).subarray(since).toString('utf8').includes('MongoServerMain ready on'),
    timeoutMs: 60_000,
  });
  log(
    `MongoDB-compatible server ready on ${uri} (pid ${supervised.current().pgid}) in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
  );
  return { url: uri, stop, supervised };
}
