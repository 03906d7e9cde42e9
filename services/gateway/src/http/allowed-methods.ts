import type Koa from 'koa';
import type Router from '@koa/router';

interface RouteLayer {
  path: string | RegExp;
  methods: string[];
  match(path: string): boolean;
}

/**
 * How specific a route path is, segment by segment: 0 for a literal segment, 1 for a parameter.
 * Of two paths that match the same request, the one whose first differing segment is a literal
 * wins (`/products/bulk` over `/products/{product_id}`), whatever the order they were declared in.
 */
function specificity(path: string | RegExp): number[] {
  if (typeof path !== 'string') return [1];
  return path.split('/').map((segment) => (segment.includes(':') || segment.includes('*') ? 1 : 0));
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 1) - (b[i] ?? 1);
    if (d !== 0) return d;
  }
  return 0;
}

/** The route layers (with methods) of the most specific path that matches `requestPath`. */
export function resourceLayers(router: Router, requestPath: string): RouteLayer[] {
  const matching = (router.stack as unknown as RouteLayer[]).filter(
    (layer) => layer.methods.length > 0 && layer.match(requestPath),
  );
  if (!matching.length) return [];
  const best = matching.map((l) => specificity(l.path)).reduce((a, b) => (compare(a, b) <= 0 ? a : b));
  return matching.filter((l) => compare(specificity(l.path), best) === 0);
}

/**
 * Whether a more specific path than `routePath` answers `requestPath`: the route then leaves the
 * request to it (a literal sibling wins over a `{id}` parameter, for dispatch as for `Allow`).
 */
export function shadowed(router: Router, routePath: string, requestPath: string): boolean {
  const [best] = resourceLayers(router, requestPath);
  return best !== undefined && compare(specificity(best.path), specificity(routePath)) < 0;
}

/**
 * Last in the chain, for a request no route answered: when its path is a resource the gateway
 * serves, `OPTIONS` answers 204 and any other method (TRACE, PATCH, QUERY, …) 405 Method Not
 * Allowed, both with `Allow` listing exactly that path's methods (RFC 9110 §15.5.6). Replaces
 * koa-router's allowedMethods, which unions the methods of every pattern that matches (so
 * `/products/bulk` advertised the methods of `/products/{product_id}`) and answers 501 to methods
 * it does not know.
 */
export function allowedMethods(router: Router): Koa.Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.status !== 404 || ctx.body !== undefined) return;
    const layers = resourceLayers(router, ctx.path);
    if (!layers.length) return;
    const allow = [...new Set([...layers.flatMap((l) => l.methods), 'OPTIONS'])].join(', ');
    ctx.set('Allow', allow);
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    ctx.status = 405;
    ctx.body = { detail: 'Method Not Allowed' };
  };
}
