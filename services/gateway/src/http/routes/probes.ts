import type Router from '@koa/router';
import type { Backends } from '../../clients/backends';
import { RETRY_AFTER_SECONDS } from '../errors';

/** What /readyz checks: each back service, and each dependency that service reports on. */
const READINESS: { service: keyof Omit<Backends, 'close' | 'startWatching'>; dependencies: string[] }[] = [
  { service: 'knowledge', dependencies: ['mongodb'] },
  { service: 'catalog', dependencies: ['mongodb'] },
  { service: 'similarity', dependencies: ['elasticsearch', 'embedder'] },
];

/** Every check /readyz makes: "<service>" up or unreachable, "<service>.<dependency>" up, down or unknown. */
export async function readinessChecks(backends: Backends): Promise<Record<string, string>> {
  const checks: Record<string, string> = {};
  await Promise.all(
    READINESS.map(async ({ service, dependencies }) => {
      const b = backends[service];
      // A service the watch knows is gone is not asked again (a frozen one would hold /readyz).
      const self = b.watch.isUp() ? await b.check('') : 'UNREACHABLE';
      checks[service] = self === 'UNREACHABLE' ? 'unreachable' : 'up';
      await Promise.all(
        dependencies.map(async (dep) => {
          const key = `${service}.${dep}`;
          if (self === 'UNREACHABLE') checks[key] = 'unknown';
          else checks[key] = (await b.check(`dependency:${dep}`)) === 'SERVING' ? 'up' : 'down';
        }),
      );
    }),
  );
  return Object.fromEntries(Object.entries(checks).sort(([a], [b]) => a.localeCompare(b)));
}

/** The back services as `kb.dependency.up` sees them from the gateway: up while they answer their health check. */
export function backServiceStates(checks: Record<string, string>): [string, boolean][] {
  return READINESS.map(({ service }) => [service, checks[service] === 'up']);
}

/**
 * /healthz: the gateway process is alive. /readyz: every back service answers its gRPC
 * health check and reports its dependencies up; otherwise 503 naming what is down.
 */
export function probeRoutes(router: Router, backends: Backends, elasticsearchUp?: () => boolean): void {
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.get('/readyz', async (ctx) => {
    const checks = await readinessChecks(backends);
    // The read path's own connection to Elasticsearch (its searches need it, not the similarity service).
    if (elasticsearchUp) checks['gateway.elasticsearch'] = elasticsearchUp() ? 'up' : 'down';
    const down = Object.entries(checks)
      .filter(([, v]) => v !== 'up')
      .map(([k, v]) => `${k} ${v}`);
    if (down.length) {
      ctx.status = 503;
      ctx.set('Retry-After', String(RETRY_AFTER_SECONDS));
      ctx.body = { status: 'not_ready', detail: `Not ready: ${down.join(', ')}`, checks };
    } else {
      ctx.body = { status: 'ready', checks };
    }
  });
}
