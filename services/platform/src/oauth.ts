import { isIP } from 'node:net';

/**
 * JWS algorithms a tenant may accept for OAuth access tokens: asymmetric only. A tenant's keys
 * come from a public JWKS, so an HMAC algorithm would let anyone who can read the key sign.
 */
export const JWT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;

/** What a tenant accepts until it says otherwise. */
export const DEFAULT_JWT_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'] as const;

/** The claim that names the tenant a JWT is for, unless the tenant configures another. */
export const DEFAULT_TENANT_CLAIM = 'tenant_id';

/** A loopback host: the only place a JWKS may be served over plain http (development, tests). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || /^::ffff:127\./.test(host);
  return false;
}

/**
 * Why `value`, named `setting`, may not be fetched from, or undefined when it may: an https URL,
 * or http to a loopback host (development, tests). What travels over plain http elsewhere can be
 * read or swapped on the way. The message never repeats the URL.
 */
export function insecureUrlProblem(setting: string, value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${setting}: not a URL`;
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return `${setting}: must be https (http only for a loopback host)`;
}

/** Why a JWKS URL may not be used (keys swapped on the way would swap every token's signature). */
export function jwksUrlProblem(value: string): string | undefined {
  const problem = insecureUrlProblem('oauth.jwks_url', value);
  if (problem) return problem;
  const url = new URL(value);
  return url.username || url.password ? 'oauth.jwks_url: must not carry credentials' : undefined;
}
