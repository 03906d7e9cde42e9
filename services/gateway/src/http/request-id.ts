import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import { nameHttpRoute, type Logger } from '@kb/common';

const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Every response carries X-Request-Id: the caller's own when it is a sane token, else a new
 * uuid. The id goes into every log line of the request and into the gRPC caller context.
 * Each request is logged once here, at the edge (method, route, path, status, duration; the
 * trace id and span id from the logger's mixin); the services behind log a call only when it
 * failed or its trace is sampled. The route also names the request's span.
 */
export function requestId(logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    const given = ctx.get('X-Request-Id');
    const id = VALID_REQUEST_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = id;
    ctx.state.logger = logger.child({ request_id: id });
    ctx.set('X-Request-Id', id);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // The router's template (`/api/knowledge/products/:product_id`), never the path's ids.
      const route = (ctx as { _matchedRoute?: string })._matchedRoute;
      nameHttpRoute(route);
      (ctx.state.logger as Logger).info(
        { method: ctx.method, route, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 },
        'request',
      );
    }
  };
}
