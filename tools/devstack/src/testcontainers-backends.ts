import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';
import { ELASTICSEARCH_VERSION } from './artifacts';
import type { Log } from './log';

// Official images from the default registry; Elasticsearch in the version the local path runs.
const MONGO_IMAGE = 'mongo:8.0';
const ELASTICSEARCH_IMAGE = `elasticsearch:${ELASTICSEARCH_VERSION}`;

/**
 * Whether a Docker engine answers, decided quickly (about 1.5 s at most) and without hanging
 * when there is none: DOCKER_HOST if set, else the sockets testcontainers itself looks for.
 */
export async function dockerEngineAnswers(timeoutMs = 1_500): Promise<boolean> {
  const host = process.env.DOCKER_HOST;
  if (host) {
    const url = new URL(host);
    if (url.protocol === 'unix:') return ping({ socketPath: url.pathname }, timeoutMs);
    const port = Number(url.port || (process.env.DOCKER_TLS_VERIFY ? 2376 : 2375));
    // With TLS the engine wants client certificates; an open port is enough to hand over to
    // testcontainers, which reads them. Plain TCP gets a real ping (proxies accept any connect).
    if (process.env.DOCKER_TLS_VERIFY) return tcpOpen(url.hostname, port, timeoutMs);
    return ping({ host: url.hostname, port }, timeoutMs);
  }
  const runtimeDir = process.env.XDG_RUNTIME_DIR;
  const sockets = [
    '/var/run/docker.sock',
    runtimeDir && join(runtimeDir, 'docker.sock'),
    join(homedir(), '.docker', 'run', 'docker.sock'),
    join(homedir(), '.docker', 'desktop', 'docker.sock'),
    join('/run', 'user', String(userInfo().uid), 'docker.sock'),
  ].filter((s): s is string => !!s && existsSync(s));
  const answers = await Promise.all(sockets.map((socketPath) => ping({ socketPath }, timeoutMs)));
  return answers.includes(true);
}

export interface ContainerBackends {
  mongoUri?: string;
  elasticsearchUrl?: string;
  stop(): Promise<void>;
}

/**
 * MongoDB as a single-node replica set (so transactions work) and Elasticsearch without
 * security, each only if asked for. Data lives only as long as the containers.
 */
export async function startContainerBackends(
  need: { mongo: boolean; elasticsearch: boolean },
  log: Log,
): Promise<ContainerBackends> {
  // Loaded only here: the library is large and most runs without Docker never need it.
  const [{ MongoDBContainer }, { ElasticsearchContainer }] = await Promise.all([
    import('@testcontainers/mongodb'),
    import('@testcontainers/elasticsearch'),
  ]);
  const started: { stop(): Promise<unknown> }[] = [];
  const result: ContainerBackends = {
    async stop() {
      await Promise.allSettled(started.map((c) => c.stop()));
    },
  };
  try {
    await Promise.all([
      need.mongo &&
        (async () => {
          log(`Starting MongoDB (${MONGO_IMAGE}) in Docker ...`);
          const mongo = await new MongoDBContainer(MONGO_IMAGE).start();
          started.push(mongo);
          // The replica set advertises the container's own host name; connect to the mapped port directly.
          result.mongoUri = `${mongo.getConnectionString()}/?directConnection=true`;
          log(`MongoDB ready on ${result.mongoUri}`);
        })(),
      need.elasticsearch &&
        (async () => {
          log(`Starting Elasticsearch (${ELASTICSEARCH_IMAGE}) in Docker ...`);
          const es = await new ElasticsearchContainer(ELASTICSEARCH_IMAGE)
            .withEnvironment({
              'xpack.security.enabled': 'false',
              'cluster.routing.allocation.disk.threshold_enabled': 'false',
              // A filesystem snapshot repository may live here (the snapshot drill test).
              'path.repo': '/usr/share/elasticsearch/snapshots',
              // Comes after the module's default -Xmx2G on the JVM command line, so it wins.
              ES_JAVA_OPTS: '-Xms512m -Xmx512m',
            })
            .start();
          started.push(es);
          result.elasticsearchUrl = es.getHttpUrl();
          log(`Elasticsearch ready on ${result.elasticsearchUrl}`);
        })(),
    ]);
  } catch (err) {
    await result.stop();
    throw err;
  }
  return result;
}

/** GET /_ping on the Docker API: true only for a 200. */
function ping(where: { socketPath: string } | { host: string; port: number }, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ ...where, path: '/_ping', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

function tcpOpen(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: timeoutMs });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}
