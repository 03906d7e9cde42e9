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

/** The pod's own state: the only thing that makes /readyz 503. */
export type PodState = 'starting' | 'serving' | 'draining';

/**
 * /healthz: the gateway process is alive. /readyz: this pod can serve. 200 while it has started
 * and is not draining (SIGTERM), whatever its dependencies do: `status` "ready" when every check
 * is up, "degraded" naming what is down (`degraded`, `detail`) when one is not; requests that
 * need a dependency known down answer 503 + Retry-After themselves. 503 (`status` "starting" or
 * "draining") only for the pod's own state: a shared dependency down never takes every gateway
 * out of its Service at once. `checks` lists every dependency's state either way.
 */
export function probeRoutes(
  router: Router,
  backends: Backends,
  elasticsearchUp?: () => boolean,
  podState: () => PodState = () => 'serving',
): void {
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.get('/readyz', async (ctx) => {
    const state = podState();
    const checks = await readinessChecks(backends);
    // The read path's own connection to Elasticsearch (its searches need it, not the similarity service).
    if (elasticsearchUp) checks['gateway.elasticsearch'] = elasticsearchUp() ? 'up' : 'down';
    const degraded = Object.keys(checks).filter((k) => checks[k] !== 'up');
    const down = degraded.map((k) => `${k} ${checks[k]}`).join(', ');
    if (state !== 'serving') {
      ctx.status = 503;
      ctx.set('Retry-After', String(RETRY_AFTER_SECONDS));
      const why = state === 'draining' ? 'shutting down' : 'starting';
      ctx.body = { status: state, detail: `Not ready: ${why}`, degraded, checks };
    } else if (degraded.length) {
      ctx.body = { status: 'degraded', detail: `Degraded: ${down}`, degraded, checks };
    } else {
      ctx.body = { status: 'ready', degraded, checks };
    }
  });
}
