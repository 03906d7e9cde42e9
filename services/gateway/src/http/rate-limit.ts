import type Koa from 'koa';
import ratelimit from 'koa-ratelimit';
import { sha256Hex } from '@kb/common';
import { API_PREFIX } from './route';

/**
 * Requests per minute per bearer token (per client address without one), in this gateway
 * process; above it, 429 with Retry-After. 0 switches it off. Behind several gateway replicas
 * the effective limit is per replica.
 */
export function rateLimit(perMinute: number): Koa.Middleware {
  const limiter = ratelimit({
    driver: 'memory',
    db: new Map(),
    duration: 60_000,
    max: perMinute,
    throw: true,
    errorMessage: 'Rate limit exceeded',
    id: (ctx) => {
      const auth = ctx.get('Authorization');
      return auth ? `t:${sha256Hex(auth)}` : `ip:${ctx.ip}`;
    },
  });
  return async (ctx, next) => {
    if (perMinute <= 0 || !ctx.path.startsWith(API_PREFIX) || ctx.path === `${API_PREFIX}/openapi.json`) return next();
    return limiter(ctx, next);
  };
}
