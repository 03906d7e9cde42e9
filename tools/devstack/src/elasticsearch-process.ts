import { randomBytes } from 'node:crypto';
import { chownSync, cpSync, lchownSync, mkdirSync, readdirSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { elasticsearchBaseDir } from './cache';
import { findElasticsearchJdk } from './java';
import { freePorts } from './ports';
import type { ProcessSpec } from './process-group';
import { backendDir, startUntilReady, type LocalBackend, type LocalProcessOptions } from './local-backend';
import { ELASTICSEARCH_USER, ensureSystemUser } from './system-user';

/**
 * Starts Elasticsearch from the unpacked distribution at `home`, on free loopback ports.
 * (Long: most of it is the one process spec, read as a whole.)
 */
export async function startElasticsearchProcess(home: string, opts: LocalProcessOptions): Promise<LocalBackend> {
  const { log } = opts;
  const jdk = findElasticsearchJdk();
  const base = elasticsearchBaseDir();
  const { dir, temporary } = backendDir('elasticsearch', base, opts);
  for (const sub of ['data', 'logs', 'tmp', 'snapshots']) mkdirSync(join(dir, sub), { recursive: true });
  // A private copy of config/: Elasticsearch writes its keystore there, and the unpacked
  // distribution stays read-only and shared by every run.
  cpSync(join(home, 'config'), join(dir, 'config'), { recursive: true, force: true });

  // Elasticsearch refuses to run as root: run it as a dedicated unprivileged user.
  const user = process.getuid?.() === 0 ? ensureSystemUser(ELASTICSEARCH_USER, log) : undefined;
  if (user) chownTree(dir, user.uid, user.gid);

  const [httpPort, transportPort] = (await freePorts(2)) as [number, number];
  const marker = `kb-devstack-${randomBytes(6).toString('hex')}`;
  const url = `http://127.0.0.1:${httpPort}`;
  log(
    `Starting Elasticsearch on ${url} (data: ${temporary ? 'temporary' : dir}${user ? `, as user ${ELASTICSEARCH_USER}` : ''}) ...`,
  );
  const started = Date.now();
  const spec: ProcessSpec = {
    name: 'elasticsearch',
    command: join(home, 'bin', 'elasticsearch'),
    args: [
      ['discovery.type', 'single-node'],
      ['network.host', '127.0.0.1'],
      ['http.port', String(httpPort)],
      ['transport.port', String(transportPort)],
      ['xpack.security.enabled', 'false'],
      // Dev machines often have fuller disks than servers; do not refuse to allocate shards.
      ['cluster.routing.allocation.disk.threshold_enabled', 'false'],
      ['path.data', join(dir, 'data')],
      ['path.logs', join(dir, 'logs')],
      // Where a filesystem snapshot repository may live (docs/operations.md, "Backup and restore";
      // the snapshot drill test finds it in the node's settings).
      ['path.repo', join(dir, 'snapshots')],
    ].flatMap(([k, v]) => ['-E', `${k}=${v}`]),
    env: {
      ...process.env,
      ES_JAVA_HOME: jdk.home,
      // The marker lands on the server JVM's command line, so a later run can recognise it.
      ES_JAVA_OPTS: `-Xms512m -Xmx512m -Dkb.devstack=${marker}`,
      ES_PATH_CONF: join(dir, 'config'),
      ES_TMPDIR: join(dir, 'tmp'),
      ...(user ? { HOME: dir, USER: ELASTICSEARCH_USER, LOGNAME: ELASTICSEARCH_USER } : {}),
    },
    cwd: dir,
    logFile: join(dir, 'elasticsearch.out.log'),
    marker,
    ...(user ?? {}),
  };
  const { stop, supervised } = await startUntilReady({
    what: 'Elasticsearch',
    spec,
    dir,
    temporary,
    opts,
    // Yellow or green: a restarted node with data is usable only once its shards are recovered.
    ready: async () => (await httpStatus(`${url}/_cluster/health?wait_for_status=yellow&timeout=1s`)) === 200,
    timeoutMs: 120_000,
    pollMs: 250,
  });
  log(
    `Elasticsearch ready on ${url} (pid ${supervised.current().pgid}) in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
  );
  return { url, stop, supervised };
}

function chownTree(path: string, uid: number, gid: number): void {
  chownSync(path, uid, gid);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) chownTree(child, uid, gid);
    else lchownSync(child, uid, gid);
  }
}

/** Status code of a GET, or 0 when nothing answers (yet). */
function httpStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = get(url, { timeout: 5_000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}
