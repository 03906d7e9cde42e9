import type { Server } from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import { DRAIN_MS, cachedReading, observeDependencies, type Logger } from '@kb/platform';
import type { GatewayConfig } from './config';
import type { Backends } from './clients/backends';
import { errorHandler } from './http/errors';
import { requestId } from './http/request-id';
import { serverSpans } from './http/server-span';
import { requestLimits, type RequestLimits } from './http/rate-limit';
import { tenantResolver } from './http/tenancy';
import { authenticator } from './http/authentication';
import { API_PREFIX, RouteTable } from './http/route';
import { buildOpenApi } from './http/openapi';
import { allowedMethods } from './http/allowed-methods';
import { entryRoutes } from './http/routes/entries';
import { entrySearchRoutes } from './http/routes/entry-search';
import { siteKnowledgeRoutes } from './http/routes/site-knowledge';
import { backServiceStates, probeRoutes, readinessChecks, type PodState } from './http/routes/probes';
import { categoryRoutes } from './http/routes/categories';
import { siteRoutes } from './http/routes/sites';
import { productRoutes } from './http/routes/products';
import { similarSearchRoutes } from './http/routes/similar-search';
import { productSearchRoutes } from './http/routes/product-search';
import { mcpRoutes } from './http/mcp/endpoint';
import { sessionCodec } from './http/mcp/session';
import { apiDocsRoutes } from './http/routes/api-docs';
import { readPath, type ReadPath } from './read-path/read-path';

const VERSION: string = (require('../package.json') as { version: string }).version;

/**
 * The Koa application: middleware order is server span → request id → errors → failed-authentication limit →
 * routes; each route resolves the tenant, authenticates, counts the caller's rate limit, and
 * only then reads the body.
 */
export function createGatewayApp(
  config: GatewayConfig,
  backends: Backends,
  logger: Logger,
  reads?: ReadPath,
  podState?: () => PodState,
): { app: Koa; openapi: () => unknown; limits: RequestLimits } {
  const app = new Koa({ proxy: config.TRUST_PROXY, maxIpsCount: config.TRUST_PROXY_HOPS });
  app.silent = true; // errors are logged by errorHandler, with the request id
  const router = new Router();
  const resolveTenant = tenantResolver(config, backends);
  const authenticate = authenticator(backends, config.TOKEN_CACHE_TTL_MS);
  const limits = requestLimits(config, authenticate.recognised);

  const routes = new RouteTable(
    router,
    {
      tenant: resolveTenant,
      check: authenticate,
      admit: limits.admit,
    },
    config.BODY_LIMIT_BYTES,
    // The read path's entry search confirms what MongoDB holds for a second; a write here ends that at once.
    reads && ((tenantId) => reads.forgetTenant(tenantId)),
  );
  entryRoutes(routes, backends);
  entrySearchRoutes(routes, backends, reads);
  siteKnowledgeRoutes(routes, backends);
  categoryRoutes(routes, backends);
  siteRoutes(routes, backends);
  productRoutes(routes, backends, reads);
  similarSearchRoutes(routes, backends, reads);
  productSearchRoutes(routes, backends, reads);

  let openapi: unknown;
  const document = () => (openapi ??= buildOpenApi(routes.specs, { version: VERSION }));
  router.get(`${API_PREFIX}/openapi.json`, (ctx) => {
    ctx.body = document();
  });
  mcpRoutes(router, {
    routes,
    auth: { tenant: resolveTenant, check: authenticate, admit: limits.admit },
    sessions: sessionCodec(config.SERVICE_AUTH_SECRET, config.SERVICE_AUTH_SECRET_ACCEPTED),
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    version: VERSION,
    logger,
  });
  apiDocsRoutes(router);
  probeRoutes(router, backends, reads && (() => reads.elasticsearchUp()), podState);

  app.use(serverSpans());
  app.use(requestId(logger));
  app.use(errorHandler(logger));
  app.use(limits.failedAuthentications);
  app.use(router.routes());
  app.use(allowedMethods(router));
  return { app, openapi: document, limits };
}

export interface GatewayServer {
  readonly port: number;
  readonly server: Server;
  stop(): Promise<void>;
}

export async function startGateway(config: GatewayConfig, backends: Backends, logger: Logger): Promise<GatewayServer> {
  const reads = config.ELASTICSEARCH_URL
    ? readPath({
        url: config.ELASTICSEARCH_URL,
        indexPrefix: config.ELASTICSEARCH_INDEX_PREFIX,
        backends,
        logger,
        hitCacheChars: config.HIT_CACHE_CHARS,
        similarCacheHits: config.SIMILAR_CACHE_HITS,
      })
    : undefined;
  // /readyz: 503 until listening and once draining; 200 in between, whatever the dependencies do.
  let state: PodState = 'starting';
  const { app } = createGatewayApp(config, backends, logger, reads, () => state);
  // Each back service (and Elasticsearch, for the read path) watched from here on: calls that
  // need one known down answer 503 at once.
  await Promise.all([backends.startWatching(), reads?.start()]);
  const server = app.listen(config.PORT, config.HOST);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new Error(`Port ${config.PORT} on ${config.HOST} is already in use (set PORT to use another)`)
          : err,
      ),
    );
  });
  server.keepAliveTimeout = 65_000; // longer than common load balancers' idle timeout
  const port = (server.address() as { port: number }).port;
  state = 'serving';
  logger.info({ port, host: config.HOST, tenant_mode: config.TENANT_MODE }, 'gateway listening');
  // The back services' health as /readyz checks it, at most every 5 s and only when scraped.
  const checks = cachedReading(() => readinessChecks(backends), 5_000);
  const unobserve = observeDependencies(async () => backServiceStates((await checks()) ?? {}));
  return {
    port,
    server,
    stop: () =>
      new Promise<void>((resolve) => {
        state = 'draining';
        unobserve();
        server.close(() => {
          reads?.stop();
          resolve();
        });
        server.closeIdleConnections();
        // In-flight calls (a bulk indexing inline can take seconds) get the whole drain window.
        setTimeout(() => server.closeAllConnections(), DRAIN_MS).unref();
      }),
  };
}
