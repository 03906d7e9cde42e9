import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cacheDir, checkoutKey, mkdirShared } from './cache';
import type { LocalBackend, LocalProcessOptions } from './local-backend';
import { findJava17 } from './java';
import { freePort } from './ports';
import { logTail, startProcess, waitUntil } from './process-group';

const LAUNCHER = resolve(__dirname, '..', 'java', 'MongoServerMain.java');

/**
 * Starts mongo-java-server (jars in `libDir`) on a free loopback port: in memory when throw-away,
 * else with its H2 backend in a file. It speaks the MongoDB wire protocol but has no sessions,
 * so no multi-document transactions.
 */
export async function startMongoProcess(libDir: string, opts: LocalProcessOptions): Promise<LocalBackend> {
  const { log } = opts;
  const jdk = findJava17();
  const temporary = !opts.dataDir && !opts.persistent;
  let dir: string;
  if (opts.dataDir) dir = opts.dataDir;
  else if (opts.persistent) dir = join(cacheDir(), 'data', checkoutKey(), 'mongo');
  else dir = mkdtempSync(join(mkdirShared(join(cacheDir(), 'tmp')), 'mongo-'));
  if (temporary) opts.tracker?.addTempDir(dir);
  mkdirShared(dir);

  const port = await freePort();
  const marker = `kb-devstack-${randomBytes(6).toString('hex')}`;
  const uri = `mongodb://127.0.0.1:${port}/`;
  const h2File = join(dir, 'mongo.h2');
  log(`Starting the MongoDB-compatible server on ${uri} (data: ${temporary ? 'in memory' : h2File}) ...`);
  const started = Date.now();
  const proc = await startProcess({
    name: 'mongo',
    command: jdk.java,
    args: [
      '-Xmx512m',
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
  }).catch((err: unknown) => {
    if (temporary) rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  opts.tracker?.addProcess({ name: proc.name, pgid: proc.pgid, marker });

  const stop = async (): Promise<void> => {
    await proc.stop();
    if (temporary) rmSync(dir, { recursive: true, force: true });
  };
  const timeoutMs = opts.startTimeoutMs ?? 60_000;
  const ready = await waitUntil(
    () => proc.exitReason() !== undefined || readFileSync(proc.logFile, 'utf8').includes('MongoServerMain ready on'),
    timeoutMs,
  );
  if (!ready || proc.exitReason()) {
    const why = proc.exitReason() ? `${proc.exitReason()} before it was ready` : `was not ready within ${timeoutMs / 1000} s`;
    const tail = logTail(proc.logFile);
    await stop();
    throw new Error(`The MongoDB-compatible server ${why}. Last lines of its output (${proc.logFile}):\n${tail}`);
  }
  log(`MongoDB-compatible server ready on ${uri} in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  return { url: uri, stop };
}
