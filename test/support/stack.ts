/**
 * The whole system in-process for a test file: the three back services on free gRPC ports
 * and the gateway on a free HTTP port, against the run's real backends (global-setup.ts).
 * Each test file gets its own MongoDB database, so files never see each other's data.
 */
import mongoose from 'mongoose';
import pino from 'pino';
import { httpRequest, type HttpResponse, type RequestOptions } from './http';
import { testName as uniqueId } from './test-names';
import { loadKnowledgeConfig, startKnowledgeServer } from '@kb/knowledge';
import { loadCatalogConfig, startCatalogServer } from '@kb/catalog';
import { runAdmin } from '@kb/admin';
import { Writable } from 'node:stream';
import { loadSimilarityConfig, startSimilarityServer } from '@kb/similarity';
import { connectBackends, loadGatewayConfig, startGateway } from '@kb/gateway';

export interface Stack {
  baseUrl: string;
  port: number;
  mongoUri: string;
  /** The back services' gRPC addresses (tests that call them directly). */
  addresses: { knowledge: string; catalog: string; similarity: string };
  /** The stack's Elasticsearch index prefix. */
  indexPrefix: string;
  /**
   * Runs an admin CLI command against this stack's database; returns its stdout lines, throws
   * what it failed with. `index errors|retry` without --kind: entries only.
   */
  admin(...argv: string[]): Promise<string[]>;
  /**
   * Runs an admin CLI command (products import, reindex products) against this stack, with its
   * stderr and exit code. `index errors|retry` without --kind: products only.
   */
  catalogAdmin(...argv: string[]): Promise<{ code: number; stdout: string[]; stderr: string }>;
  /** One pass of the catalog's background indexer now; resolves to the number of items done. */
  indexPending(): Promise<number>;
  /** A new tenant and a token for it; returns the token. */
  tenantWithToken(tenantId: string, role?: string, extra?: string[]): Promise<string>;
  token(tenantId: string, role: string, extra?: string[]): Promise<string>;
  /** An HTTP request to the gateway, addressed to a tenant by its `<tenant>.localhost` host. */
  request(tenantId: string, path: string, init?: RequestOptions): Promise<HttpResponse>;
  /** Waits until the entry is in the search index (a long one may miss the inline write bound and go to the indexer). */
  entryIndexed(tenantId: string, entryId: string, token: string, withinMs?: number): Promise<void>;
  stopService(name: 'knowledge' | 'catalog' | 'similarity'): Promise<void>;
  stop(): Promise<void>;
}

/** `<prefix>-<12 hex>`, of this test run (test-names.ts). */
export { uniqueId };

/** The test run's MongoDB URI with `db` as its database (one database per test file). */
export function databaseUri(db: string, base = process.env.MONGODB_URI as string): string {
  const url = new URL(base);
  url.pathname = `/${db}`;
  return url.toString();
}

export interface Services {
  gatewayPort: number;
  /** host:port of each back service's gRPC server. */
  addresses: Record<'knowledge' | 'catalog' | 'similarity', string>;
  similarityAddr: string;
  indexPending(): Promise<number>;
  stopService(name: 'knowledge' | 'catalog' | 'similarity'): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The three back services on free gRPC ports and the gateway on a free HTTP port, with `env`
 * over the test run's environment. Does not wait for readiness (the outage tests start them
 * against backends that are down).
 */
export async function startServices(env: NodeJS.ProcessEnv): Promise<Services> {
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const base = { ...process.env, GRPC_HOST: '127.0.0.1', ...env };
  const similarity = await startSimilarityServer(loadSimilarityConfig({ ...base, SIMILARITY_GRPC_PORT: '0' }), logger);
  const withSimilarity = { ...base, SIMILARITY_GRPC_ADDR: `127.0.0.1:${similarity.port}` };
  const knowledge = await startKnowledgeServer(
    loadKnowledgeConfig({ ...withSimilarity, KNOWLEDGE_GRPC_PORT: '0' }),
    logger,
  );
  const catalog = await startCatalogServer(loadCatalogConfig({ ...withSimilarity, CATALOG_GRPC_PORT: '0' }), logger);
  const services = { knowledge, catalog, similarity } as Record<string, { stop(): Promise<void> } | undefined>;
  const gatewayConfig = loadGatewayConfig({
    GRPC_DEADLINE_MS: '5000',
    ...base,
    PORT: '0',
    HOST: '127.0.0.1',
    TENANT_MODE: 'host',
    KNOWLEDGE_GRPC_ADDR: `127.0.0.1:${knowledge.port}`,
    CATALOG_GRPC_ADDR: `127.0.0.1:${catalog.port}`,
    SIMILARITY_GRPC_ADDR: `127.0.0.1:${similarity.port}`,
  });
  const backends = connectBackends(gatewayConfig);
  const gateway = await startGateway(gatewayConfig, backends, logger);
  return {
    gatewayPort: gateway.port,
    addresses: {
      knowledge: `127.0.0.1:${knowledge.port}`,
      catalog: `127.0.0.1:${catalog.port}`,
      similarity: `127.0.0.1:${similarity.port}`,
    },
    similarityAddr: `127.0.0.1:${similarity.port}`,
    indexPending: () => catalog.indexPending(),
    async stopService(name) {
      await services[name]?.stop();
      services[name] = undefined;
    },
    async stop() {
      await gateway.stop();
      backends.close();
      for (const s of Object.values(services)) await s?.stop();
    },
  };
}

/**
 * `index errors|retry` without --kind does both kinds; the helpers kept the split of the two
 * CLIs they were written for (entries: `admin`, products: `catalogAdmin`).
 */
function oneKind(argv: string[], kind: 'entries' | 'products'): string[] {
  const given = argv.some((a) => a === '--kind' || a.startsWith('--kind='));
  return argv[0] === 'index' && !given ? [...argv, '--kind', kind] : argv;
}

export async function startStack(options: { env?: Record<string, string> } = {}): Promise<Stack> {
  // Each test file: its own MongoDB database and its own Elasticsearch index names (unless the
  // env names them: a second stack on the first one's data).
  const db = uniqueId('kbtest');
  const mongoUri = options.env?.MONGODB_URI ?? databaseUri(db);
  const services = await startServices({ MONGODB_URI: mongoUri, ELASTICSEARCH_INDEX_PREFIX: db, ...options.env });
  const gateway = { port: services.gatewayPort };
  const baseUrl = `http://127.0.0.1:${gateway.port}`;
  // Ready means MongoDB indexes exist and every dependency answers, as `npm start` waits for.
  const deadline = Date.now() + 30_000;
  // (/readyz is 200 while the gateway can serve; "ready", not "degraded", means every check is up.)
  while ((await httpRequest(gateway.port, 'localhost', '/readyz')).json?.status !== 'ready') {
    if (Date.now() > deadline) throw new Error('the stack did not become ready within 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }

  const adminConnection = await mongoose.createConnection(mongoUri, { serverSelectionTimeoutMS: 5000 }).asPromise();
  const admin = async (...argv: string[]) => {
    const lines: string[] = [];
    await runAdmin(oneKind(argv, 'entries'), {
      connection: adminConnection,
      out: (line) => lines.push(line),
      similarityAddr: services.similarityAddr,
    });
    return lines;
  };
  const catalogAdmin = async (...argv: string[]) => {
    const stdout: string[] = [];
    let stderr = '';
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        stderr += chunk.toString();
        cb();
      },
    });
    const code = await runAdmin(oneKind(argv, 'products'), {
      connection: adminConnection,
      out: (line) => stdout.push(line),
      similarityAddr: services.similarityAddr,
      stderr: sink,
      deadlineMs: 5000,
    });
    return { code, stdout, stderr };
  };
  const token = async (tenantId: string, role: string, extra: string[] = []) =>
    (await admin('token', 'create', '--tenant', tenantId, '--role', role, ...extra)).at(-1) as string;

  return {
    baseUrl,
    port: gateway.port,
    mongoUri,
    addresses: services.addresses,
    indexPrefix: options.env?.ELASTICSEARCH_INDEX_PREFIX ?? db,
    admin,
    catalogAdmin,
    indexPending: () => services.indexPending(),
    token,
    async tenantWithToken(tenantId, role = 'Admin', extra = []) {
      await admin('tenant', 'create', tenantId);
      return token(tenantId, role, extra);
    },
    request(tenantId, path, init = {}) {
      return httpRequest(gateway.port, `${tenantId}.localhost`, path, init);
    },
    async entryIndexed(tenantId, entryId, token, withinMs = 60_000) {
      const until = Date.now() + withinMs;
      const get = () =>
        httpRequest(gateway.port, `${tenantId}.localhost`, `/api/knowledge/knowledge-entries/${entryId}`, { token });
      while ((await get()).json?.embedding_model == null) {
        if (Date.now() > until) throw new Error(`entry ${entryId} was not indexed within ${withinMs} ms`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    stopService: (name) => services.stopService(name),
    async stop() {
      await services.stop();
      await adminConnection.close();
    },
  };
}

export { httpRequest, type HttpResponse, type RequestOptions };

/** Creates `tenant` through the admin CLI's code and mints an Admin token for it, as an operator would. */
export async function tenantWithAdminToken(connection: mongoose.Connection, tenant: string): Promise<string> {
  await runAdmin(['tenant', 'create', tenant], { connection, out: () => undefined });
  return adminToken(connection, tenant);
}

/** Mints another Admin token for an existing tenant (one the gateway has not seen, so not cached). */
export async function adminToken(connection: mongoose.Connection, tenant: string): Promise<string> {
  const lines: string[] = [];
  await runAdmin(['token', 'create', '--tenant', tenant, '--role', 'Admin'], {
    connection,
    out: (line) => lines.push(line),
  });
  return lines.at(-1) as string;
}
