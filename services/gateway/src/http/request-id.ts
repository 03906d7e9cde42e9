import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import { context } from '@opentelemetry/api';
import { nameHttpRoute, type Logger } from '@kb/platform';
import { matchedRoute } from './server-span';

const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Every response carries X-Request-Id: the caller's own when it is a sane token, else a new
 * uuid. The id goes into every log line of the request and into the gRPC caller context.
 * Each request is logged once here, at the edge (method, route, path, status, duration; the
 * trace id and span id from the logger's mixin); the services behind log a call only when it
 * failed or its trace is sampled. The route also names the request's span.
 *
 * The line is written once the answer has been handed to the socket (or the client went away
 * first: `aborted`), as pino-http does: Koa sends the body only after every middleware has
 * returned, so a line written here before that was part of every request's latency (0.1-0.2 ms
 * of a similar search's, docs/performance.md).
 */
export function requestId(logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    const given = ctx.get('X-Request-Id');
    const id = VALID_REQUEST_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = id;
    ctx.state.logger = logger.child({ request_id: id });
    ctx.set('X-Request-Id', id);
    const started = process.hrtime.bigint();
    const active = context.active(); // the request's span: the line carries its trace id
    const done = () => {
      ctx.res.off('finish', done);
      ctx.res.off('close', done);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const line = {
        method: ctx.method,
        route: matchedRoute(ctx),
        path: ctx.path,
        status: ctx.status,
        ms: Math.round(ms * 10) / 10,
      };
      const aborted = !ctx.res.writableFinished;
      context.with(active, () => (ctx.state.logger as Logger).info(aborted ? { ...line, aborted } : line, 'request'));
    };
    ctx.res.once('finish', done);
    ctx.res.once('close', done);
    try {
      await next();
    } finally {
      nameHttpRoute(matchedRoute(ctx)); // before the response ends, when the span reads it
    }
  };
}
