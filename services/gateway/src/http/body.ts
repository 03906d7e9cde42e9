import type Koa from 'koa';
import coBody from 'co-body';
import { AppError, jsonShapeProblem, keyIssues, tooDeepIssue } from '@kb/common';

/**
 * Reads a JSON body for POST/PUT/PATCH: 415 for another content type, 413 above the limit,
 * 400 for malformed JSON (co-body raises those with the right status). An empty body stays
 * undefined so the route's schema reports it as missing (422).
 */
export function jsonBody(limitBytes: number): Koa.Middleware {
  return async (ctx, next) => {
    if (!['POST', 'PUT', 'PATCH'].includes(ctx.method)) return next();
    const length = Number(ctx.get('Content-Length') || '0');
    const chunked = Boolean(ctx.get('Transfer-Encoding'));
    if (length === 0 && !chunked) return next();
    if (!ctx.is('application/json', '+json')) {
      throw Object.assign(new Error('Unsupported media type: send application/json'), { status: 415, expose: true });
    }
    if (length > limitBytes) {
      throw Object.assign(new Error(`Request body too large (limit ${limitBytes} bytes)`), { status: 413, expose: true });
    }
    let parsed: unknown;
    let raw: string;
    try {
      // The raw text stays available to routes that need numbers digit for digit (prices).
      ({ parsed, raw } = (await coBody.json(ctx, { limit: limitBytes, strict: false, returnRawBody: true })) as { parsed: unknown; raw: string });
      ctx.request.body = parsed;
      ctx.request.rawBody = raw;
    } catch (err) {
      const e = err as { status?: number; type?: string; message?: string };
      if (e.status === 413 || e.type === 'entity.too.large') {
        throw Object.assign(new Error(`Request body too large (limit ${limitBytes} bytes)`), { status: 413, expose: true });
      }
      if (e.status === 400 || e.type === 'entity.parse.failed') {
        throw Object.assign(new Error('Malformed JSON body'), { status: 400, expose: true });
      }
      if (e.status === 415) throw Object.assign(new Error('Unsupported content encoding'), { status: 415, expose: true });
      throw new AppError('bad_request', 'Could not read the request body');
    }
    // JSON.parse keeps the last of two equal keys; a body that says two things is refused.
    const problem = jsonShapeProblem(ctx.request.rawBody ?? '');
    if (problem?.kind === 'duplicate') {
      throw Object.assign(new Error(`Malformed JSON body: duplicate key "${problem.key}"`), { status: 400, expose: true });
    }
    if (problem?.kind === 'too_deep') {
      throw AppError.invalid([tooDeepIssue(['body'])]);
    }
    const issues = keyIssues(parsed);
    if (issues.length) throw AppError.invalid(issues.slice(0, 20));
    return next();
  };
}

declare module 'koa' {
  interface Request {
    body?: unknown;
    rawBody?: string;
  }
}
