import type Koa from 'koa';
import { AppError, KIND_TO_GRPC, grpcToHttpStatus, type ErrorKind, type Logger } from '@kb/common';

/** An AppError's HTTP status: the one its gRPC code maps to, so the two tables cannot drift. */
function httpStatus(kind: ErrorKind): number {
  return kind === 'bad_request' ? 400 : grpcToHttpStatus(KIND_TO_GRPC[kind]);
}

/** Seconds a client should wait before retrying after a 503. */
export const RETRY_AFTER_SECONDS = 5;

/**
 * Second middleware in the chain, right after the request id (so an error response still
 * carries X-Request-Id and its log line the id): turns every error into the body README.md
 * ("Errors") gives ({"detail": [...]} for 422, {"detail": "..."} otherwise), never a stack
 * trace, and logs 5xx with the request id.
 */
export function errorHandler(logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { detail: 'Not Found' };
      }
    } catch (err) {
      const { status, body, headers } = toResponse(err);
      ctx.status = status;
      ctx.body = body;
      for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
      if (status >= 500) {
        logger.error({ err, request_id: ctx.state.requestId, method: ctx.method, path: ctx.path, status }, 'request failed');
      }
    }
  };
}

function toResponse(err: unknown): { status: number; body: unknown; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  if (err instanceof AppError) {
    const status = httpStatus(err.kind);
    if (status === 401) headers['WWW-Authenticate'] = 'Bearer realm="knowledge", error="invalid_token"';
    if (status === 503) headers['Retry-After'] = String(RETRY_AFTER_SECONDS);
    if (status === 422) return { status, body: { detail: err.issues ?? [{ loc: [], msg: err.message, type: 'value_error' }] }, headers };
    return { status, body: { detail: status === 500 ? 'Internal server error' : err.message }, headers };
  }
  // Errors raised by koa and its helpers (body parsing, router) carry an HTTP status and an
  // `expose` flag; the message is shown only when it is meant for the client.
  const e = err as { status?: number; statusCode?: number; expose?: boolean; message?: string; headers?: Record<string, string> };
  const status = e.status ?? e.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const detail = e.expose && e.message ? e.message : defaultMessage(status);
    return { status, body: { detail }, headers: e.headers ?? {} };
  }
  return { status: 500, body: { detail: 'Internal server error' }, headers };
}

function defaultMessage(status: number): string {
  switch (status) {
    case 400:
      return 'Malformed request';
    case 405:
      return 'Method Not Allowed';
    case 413:
      return 'Request body too large';
    case 415:
      return 'Unsupported media type: send application/json';
    case 429:
      return 'Rate limit exceeded';
    default:
      return 'Request failed';
  }
}
