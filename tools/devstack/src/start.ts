/**
 * `npm start`: the whole system on this machine. Fetches what is missing (first time only),
 * starts the backends and the four services, creates the `demo` tenant if absent and fills it
 * with the demo data on first start (`--no-demo` or KB_DEMO_DATA=0: not), prints a working Admin
 * token and example calls that answer from that data, and runs until Ctrl-C or SIGTERM, then
 * stops everything it started. `--replicas N` (or KB_REPLICAS): N processes of each service,
 * every client balancing over all of a service's replicas (round robin). `--es-nodes N` (or
 * KB_ES_NODES): Elasticsearch as a cluster of N local nodes (docs/operations.md).
 */
import { join } from 'node:path';
import mongoose from 'mongoose';
import { DEFAULT_GATEWAY_PORT } from '@kb/platform';
import { knowledgeAdmin } from '@kb/knowledge';
import { ensureEmbeddingModel, ensureServiceNode } from './artifacts';
import { DEMO_QUESTION, seedDemoData, type SeedCounts, type SeedResult } from './demo';
import { emptyIndices, rebuildIndices } from './index-check';
import { startBackends, type Backends } from './backends';
import { runDir } from './cache';
import { assertPortFree } from './ports';
import type { RunningProcess } from './process-group';
import { startServices, type RunningServices, type ServiceReplica } from './services';
import { supervise, type Supervisor } from './supervisor';
import { readStartState, reapStale } from './state';

const DEMO_TENANT = 'demo';
/**
 * The user the printed token acts for, the same on every start: the demo's personal notes are
 * this user's, so each start's new token still sees them.
 */
export const DEMO_USER_ID = '0d3e5a1b-7c2f-4e8a-9b6d-2f4c8a1e3b57';
/** The database the services use when the MongoDB address names none. */
export const DATABASE = 'knowledge_service';

const log = (msg: string) => process.stdout.write(`[start] ${msg}\n`);

function fail(message: string): never {
  process.stderr.write(`\nnpm start: ${message}\n`);
  process.exit(1);
}

/** `npm start -- --no-demo` or KB_DEMO_DATA=0 (also false, no, off): the demo tenant stays as it is. */
function demoDataWanted(): boolean {
  if (process.argv.slice(2).includes('--no-demo')) return false;
  return !/^(0|false|no|off)$/i.test(process.env.KB_DEMO_DATA ?? '');
}

/** `--<name> N` or `--<name>=N` on the command line, else the environment variable, else 1; a whole number from 1 to `max`. */
function countWanted(name: string, variable: string, max: number): number {
  const args = process.argv.slice(2);
  const at = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  const given = at < 0 ? process.env[variable] || '1' : args[at]?.includes('=') ? args[at].split('=')[1] : args[at + 1];
  const n = Number(given);
  if (!Number.isInteger(n) || n < 1 || n > max)
    fail(`--${name} must be a whole number from 1 to ${max}, got "${given ?? ''}"`);
  return n;
}

/** `npm start -- --replicas N` (or `--replicas=N`, or KB_REPLICAS): processes of each service, default 1. */
const replicasWanted = () => countWanted('replicas', 'KB_REPLICAS', 8);
/** `npm start -- --es-nodes N` (or KB_ES_NODES): Elasticsearch nodes run locally, default 1 (ignored with ELASTICSEARCH_URL). */
const elasticsearchNodesWanted = () => countWanted('es-nodes', 'KB_ES_NODES', 5);

async function main(): Promise<void> {
  const withDemo = demoDataWanted();
  const replicas = replicasWanted();
  const elasticsearchNodes = elasticsearchNodesWanted();
  const port = Number(process.env.PORT ?? DEFAULT_GATEWAY_PORT);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    fail(`PORT must be a port number, got "${process.env.PORT}"`);

  const running = readStartState();
  if (running) {
    const url = (running.extra?.gatewayUrl as string | undefined) ?? 'its address';
    fail(
      `the stack of this checkout is already running (pid ${running.owner.pid}) at ` +
        `${url}. Stop it with Ctrl-C in its terminal, or kill ${running.owner.pid}.`,
    );
  }
  await reapStale(log);
  await assertPortFree(port, 'the gateway (set PORT to use another port)').catch((err: Error) => fail(err.message));

  const started = Date.now();
  const model = await ensureEmbeddingModel(log);
  const node = await ensureServiceNode(log);
  const backends = await startBackends({ persistent: true, log, elasticsearchNodes }).catch((err: Error) =>
    fail(err.message),
  );
  const mongoUri = withDatabase(backends.mongoUri, DATABASE);
  // The admin CLI of this checkout finds the same database through the run state.
  backends.recordExtra({ mongoUri });

  const children: RunningProcess[] = [];
  let services: RunningServices | undefined;
  let supervisor: Supervisor | undefined;
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    log('stopping…');
    // No more restarts (one under way finishes first, so its process is stopped below too).
    await supervisor?.stop();
    // The gateways first (no new requests), then the back services, then the backends.
    for (const child of [...(services?.children ?? children)].reverse()) await child.stop();
    await backends.stop();
    log('stopped.');
    process.exit(code);
  };
  process.once('SIGINT', () => void stopAll(0));
  process.once('SIGTERM', () => void stopAll(0));

  try {
    services = await startServices({
      mongoUri,
      elasticsearchUrl: backends.elasticsearchUrl,
      model,
      port,
      replicas,
      logDir: join(runDir(), 'logs'),
      env: { TENANT_MODE: 'host', DEFAULT_TENANT: DEMO_TENANT },
      node,
      onStarted: (child) => {
        children.push(child);
        backends.trackProcess({ name: child.name, pgid: child.pgid, marker: child.marker });
        log(`${child.name} service started (pid ${child.pgid})`);
      },
    });
    // The catalog admin commands (products import, reindex) index through this address, signed
    // with this run's system credential (the state file is readable by its owner only).
    backends.recordExtra({
      similarityGrpcAddr: services.grpcAddresses.similarity,
      serviceSystemSecret: services.secrets.system,
    });
  } catch (err) {
    process.stderr.write(`\nnpm start: ${(err as Error).message}\n`);
    await stopAll(1);
    return;
  }
  // A service or local backend that ends is started again (same ports, same data), with
  // backoff, and the output says so. This interval is also what keeps `npm start` running
  // (the children are unref'd) until a signal.
  const up = services;
  supervisor = supervise(
    [
      ...backends.supervised,
      ...up.replicas.map(({ name, service }) => ({
        name: name === service ? `the ${name} service` : `the ${service} service's replica ${name}`,
        current: () => up.children.find((c) => c.name === name) as RunningProcess,
        restart: () => up.restart(name),
      })),
    ],
    log,
    (item, proc) => backends.trackProcess({ name: proc.name, pgid: proc.pgid, marker: proc.marker }),
  );

  await rebuildLostIndices(mongoUri, backends.elasticsearchUrl);
  const url = `http://localhost:${port}`;
  let prepared: Awaited<ReturnType<typeof prepareDemoTenant>>;
  try {
    prepared = await prepareDemoTenant(mongoUri, `http://127.0.0.1:${port}`, withDemo);
  } catch (err) {
    process.stderr.write(`\nnpm start: ${(err as Error).message}\n`);
    await stopAll(1);
    return;
  }
  backends.recordExtra({ gatewayUrl: url });
  printWelcome({
    url,
    port,
    ...prepared,
    demoOff: withDemo ? 'it could not be written, see above' : '--no-demo or KB_DEMO_DATA=0',
    mongoUri,
    backends,
    replicas: up.replicas,
    seconds: ((Date.now() - started) / 1000).toFixed(1),
  });
}

/** MongoDB's entries or products missing from an empty search index are indexed again (./index-check.ts). */
async function rebuildLostIndices(mongoUri: string, elasticsearchUrl: string): Promise<void> {
  try {
    // The services' prefix: theirs from the environment (the npm start test sets its own), else their default.
    const empty = await emptyIndices(mongoUri, elasticsearchUrl, process.env.ELASTICSEARCH_INDEX_PREFIX || 'kb');
    if (empty.length === 0) return;
    log(
      `MongoDB holds ${empty.join(' and ')} that this Elasticsearch's index does not (its data is not the one they ` +
        'were indexed into): rebuilding with admin reindex',
    );
    await rebuildIndices(empty, mongoUri, log);
  } catch (err) {
    log(`could not compare the search index with MongoDB: ${(err as Error).message}`);
  }
}

/** With more than one replica: each service's processes and where they listen. */
function replicaLines(replicas: ServiceReplica[]): string {
  if (replicas.every((r) => r.name === r.service)) return '';
  const services = [...new Set(replicas.map((r) => r.service))];
  const lines = services.map((service) => {
    const own = replicas.filter((r) => r.service === service);
    const where = own.map((r) =>
      service === 'gateway' ? `${r.name} http://localhost:${r.port}` : `${r.name} :${r.port}`,
    );
    return `  ${service.padEnd(14)} ${where.join(', ')}`;
  });
  const each = replicas.filter((r) => r.service === 'gateway').length;
  return `Replicas (${each} of each; calls balanced round robin over them):\n${lines.join('\n')}\n`;
}

/** What a new user reads first: where it runs, the token, calls to try (on the demo data when there is some). */
function printWelcome({
  url,
  port,
  token,
  categoryId,
  demo,
  demoOff,
  mongoUri,
  backends,
  replicas,
  seconds,
}: {
  url: string;
  port: number;
  token: string;
  categoryId: string;
  demo: SeedResult | undefined;
  /** Why there is no demo data, when there is none. */
  demoOff: string;
  mongoUri: string;
  backends: Backends;
  replicas: ServiceReplica[];
  seconds: string;
}): void {
  const kb = `${url}/api/knowledge`;
  const auth = `-H "Authorization: Bearer ${token}"`;
  const json = `-H "Content-Type: application/json"`;
  /** One example call as a copyable curl line; a body makes it a JSON POST. */
  const curl = (path: string, body?: object, headers: string[] = []) =>
    [`  curl -s ${kb}${path} ${auth}`, ...(body ? [json, ...headers, `-d '${JSON.stringify(body)}'`] : [])].join(' ');
  const mcpAccept = '-H "Accept: application/json, text/event-stream"';
  const tryThese = demo
    ? [
        'Try (the demo tenant holds an outdoor shop: docs/demo.md):',
        curl('/search/entries', { query: DEMO_QUESTION, limit: 3, include_content: false }),
        curl('/search/similar', { anchor_product_ids: [demo.exampleProduct.id], language: 'en', limit: 5 }),
        curl('/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, [mcpAccept]),
        curl('/categories'),
        `(the similar call's anchor is "${demo.exampleProduct.title}";`,
        ' the MCP endpoint speaks Streamable HTTP to any MCP client, with the same token)',
      ].join('\n')
    : [`Try (no demo data: ${demoOff}):`, curl('/categories'), curl(`/categories/${categoryId}`)].join('\n');
  const moreTokens = `npm run admin -- token create --tenant ${DEMO_TENANT} --role Agent`;
  process.stdout.write(`
Knowledge service running at ${kb} (ready in ${seconds} s; backends: ${backends.mode})
  MongoDB        ${mongoUri}
  Elasticsearch  ${backends.elasticsearchUrl}
  Service logs   ${join(runDir(), 'logs')}
${replicaLines(replicas)}
Admin token for tenant "${DEMO_TENANT}", user ${DEMO_USER_ID} (shown once; make more with ${moreTokens}):
${token}

${tryThese}

Other tenants answer at http://<tenant>.localhost:${port} (npm run admin -- tenant create <tenant>).
API docs: ${kb}/docs   OpenAPI: ${kb}/openapi.json   Readiness: ${url}/readyz
Press Ctrl-C to stop.
`);
}

/**
 * The demo tenant (created once), a fresh Admin token for this run (always the demo user), and
 * the demo data (only what is missing), all but the tenant and token through the public API.
 */
async function prepareDemoTenant(
  mongoUri: string,
  gatewayUrl: string,
  withDemo: boolean,
): Promise<{ token: string; categoryId: string; demo: SeedResult | undefined }> {
  const connection = await mongoose.createConnection(mongoUri, { serverSelectionTimeoutMS: 10_000 }).asPromise();
  let token: string;
  try {
    const admin = await knowledgeAdmin(connection);
    const tenant = await admin.createTenant({ id: DEMO_TENANT, name: 'Demo tenant', ifMissing: true });
    if (tenant.status === 'created') log(`created tenant "${DEMO_TENANT}"`);
    else if (tenant.status !== 'unchanged') throw new Error(`could not create the demo tenant: ${tenant.status}`);
    const created = await admin.createToken({
      tenantId: DEMO_TENANT,
      role: 'Admin',
      userId: DEMO_USER_ID,
      name: 'npm start',
    });
    if (created.status !== 'created') throw new Error(`could not create the demo token: ${created.status}`);
    token = created.token;
  } finally {
    await connection.close();
  }
  const demo = withDemo ? await seedOrSayWhy(gatewayUrl, token) : undefined;
  if (demo) {
    const made = (Object.keys(COUNT_NAMES) as (keyof SeedCounts)[])
      .filter((what) => demo.created[what] > 0)
      .map((what) => `${demo.created[what]} ${COUNT_NAMES[what][demo.created[what] === 1 ? 0 : 1]}`);
    log(
      made.length > 0
        ? `demo data: created ${made.join(', ')} in ${(demo.ms / 1000).toFixed(1)} s`
        : `demo data: in place, nothing to create (${(demo.ms / 1000).toFixed(1)} s)`,
    );
    if (!demo.indexed) log('demo data: search indexing is still catching up; answers fill in over the next minutes');
    const categories = await listCategories(gatewayUrl, token);
    return { token, categoryId: categories[0]?.id ?? '', demo };
  }
  // Without the demo data: one category, so the example calls have something to show.
  const categories = await listCategories(gatewayUrl, token);
  if (categories[0]) return { token, categoryId: categories[0].id, demo: undefined };
  const res = await fetch(`${gatewayUrl}/api/knowledge/categories`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Getting started', description: 'Created by npm start' }),
  });
  if (res.status !== 201) throw new Error(`could not create the demo category: ${res.status} ${await res.text()}`);
  return { token, categoryId: ((await res.json()) as { id: string }).id, demo: undefined };
}

const COUNT_NAMES: Record<keyof SeedCounts, [one: string, many: string]> = {
  categories: ['category', 'categories'],
  entries: ['entry', 'entries'],
  notes: ['personal note', 'personal notes'],
  sites: ['site', 'sites'],
  products: ['product', 'products'],
};

/** The demo data; a failure is reported and the stack runs on without it (the next start tries again). */
async function seedOrSayWhy(gatewayUrl: string, token: string): Promise<SeedResult | undefined> {
  try {
    return await seedDemoData({ gatewayUrl, token, tenant: DEMO_TENANT, log });
  } catch (err) {
    log(`demo data: not written (${(err as Error).message}); the next start tries again, --no-demo skips it`);
    return undefined;
  }
}

async function listCategories(gatewayUrl: string, token: string): Promise<{ id: string }[]> {
  const res = await fetch(`${gatewayUrl}/api/knowledge/categories`, { headers: { Authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`could not list the demo categories: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string }[];
}

/** The address with a database name, unless it already names one. */
function withDatabase(uri: string, database: string): string {
  const url = new URL(uri);
  if (url.pathname === '' || url.pathname === '/') url.pathname = `/${database}`;
  return url.toString();
}

void main().catch((err: Error) => fail(err.stack ?? err.message));
