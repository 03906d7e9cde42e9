import type Koa from 'koa';
import { AppError, describeCause, kindToHttpStatus, type Logger } from '@kb/platform';

/** Seconds a client should wait before retrying after a 503. */
export const RETRY_AFTER_SECONDS = 5;

interface ErrorReply {
  status: number;
  body: { detail: unknown };
  headers: Record<string, string>;
}

/**
 * Second middleware in the chain, right after the request id (so an error response still
 * carries X-Request-Id and its log line the id): turns every error into the body docs/api.md
 * ("Errors") gives ({"detail": [...]} for 422, {"detail": "..."} otherwise), never a stack
 * trace, and logs 5xx with the request id. A path no route answers is a 404 like any other.
 */
export function errorHandler(logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw AppError.notFound('Not Found');
    } catch (err) {
      const { status, body, headers } = errorReply(err);
      ctx.status = status;
      ctx.body = body;
      for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
      // A door with a challenge of its own (MCP names its protected-resource metadata, RFC 9728).
      const challenge = (ctx.state as { bearerChallenge?: string }).bearerChallenge;
      if (status === 401 && challenge) ctx.set('WWW-Authenticate', challenge);
      if (status >= 500) {
        // A dependency's own reason (the read path's Elasticsearch), as the services log it.
        const cause = err instanceof AppError && err.cause !== undefined ? { cause: describeCause(err.cause) } : {};
        logger.error(
          { err, ...cause, request_id: ctx.state.requestId, method: ctx.method, path: ctx.path, status },
          'request failed',
        );
      }
    }
  };
}

const errorReply = (err: unknown): ErrorReply =>
  err instanceof AppError ? appErrorReply(err) : foreignErrorReply(err);

/** The status and body REST answers an error with (for the MCP tools, which answer it inside a result). */
export function restErrorBody(err: unknown): { status: number; body: { detail: unknown } } {
  const { status, body } = errorReply(err);
  return { status, body };
}

/** Every error the gateway raises itself or receives from a back service. */
function appErrorReply(err: AppError): ErrorReply {
  const status = kindToHttpStatus(err.kind);
  const headers: Record<string, string> = {};
  if (status === 401) headers['WWW-Authenticate'] = 'Bearer realm="knowledge", error="invalid_token"';
  if (status === 503) headers['Retry-After'] = String(RETRY_AFTER_SECONDS);
  if (status === 422)
    return { status, body: { detail: err.issues ?? [{ loc: [], msg: err.message, type: 'value_error' }] }, headers };
  return { status, body: { detail: status === 500 ? 'Internal server error' : err.message }, headers };
}

/**
 * The last resort, for errors thrown by the libraries in the chain (405s are answered by
 * allowed-methods.ts, never thrown): the rate limiter's 429 (with its Retry-After), a body
 * reader's error, and anything unforeseen. They carry an HTTP
 * status and an `expose` flag; the message is shown only when it is meant for the client, and
 * anything that is not a 4xx is a 500.
 */
function foreignErrorReply(err: unknown): ErrorReply {
  const e = err as {
    status?: number;
    statusCode?: number;
    expose?: boolean;
    message?: string;
    headers?: Record<string, string>;
  };
  const status = e.status ?? e.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const detail = e.expose && e.message ? e.message : defaultMessage(status);
    return { status, body: { detail }, headers: e.headers ?? {} };
  }
  return { status: 500, body: { detail: 'Internal server error' }, headers: {} };
}

function defaultMessage(status: number): string {
  switch (status) {
    case 400:
      return 'Malformed request';
    case 405:
      return 'Method Not Allowed';
    case 429:
      return 'Rate limit exceeded';
    default:
      return 'Request failed';
  }
}
