import type Koa from 'koa';
import { AppError } from '@kb/platform';

/** The one 401 of the gateway (the error handler adds `WWW-Authenticate: Bearer`). */
export const unauthenticated = (message = 'Invalid or expired token') => new AppError('unauthenticated', message);

/**
 * RFC 6750 section 2.1: `Bearer`, in any case (RFC 9110 11.1: the scheme is case-insensitive),
 * exactly one space, then the b64token and nothing else. Any other spelling (two spaces, a tab,
 * trailing text, another scheme) is refused rather than read generously: one token, one way to write it.
 */
const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i;

export function bearerToken(ctx: Koa.Context): string {
  const header = ctx.get('Authorization');
  const match = BEARER.exec(header);
  if (!match)
    throw unauthenticated(
      header ? 'Malformed Authorization header: expected "Bearer <token>"' : 'Missing bearer token',
    );
  return match[1] as string;
}

/**
 * The answer for an address that names no tenant: the same 401 a tenant gives a request with
 * the same Authorization header and no valid token, so the answer does not tell which tenants exist.
 */
export function unknownTenantRefusal(ctx: Koa.Context): AppError {
  try {
    bearerToken(ctx);
  } catch (err) {
    return err as AppError;
  }
  return unauthenticated();
}
