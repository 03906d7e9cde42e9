import { isIPv6 } from 'node:net';
import type Koa from 'koa';
import { LRUCache } from 'lru-cache';
import { AppError, type Caller } from '@kb/platform';
import type { GatewayConfig } from '../config';
import type { Tenant } from './tenancy';
import { API_PREFIX } from './route';

const WINDOW_MS = 60_000;

interface Window {
  count: number;
  resetAt: number;
}

/**
 * Counts per key in fixed one-minute windows, in a store that keeps at most `maxKeys` keys: past
 * that the least recently used one is dropped. A key being hammered is never the least recently
 * used, so a flood of fresh keys evicts idle ones and cannot reset the key it competes with.
 */
export class WindowCounter {
  private readonly windows: LRUCache<string, Window>;

  constructor(maxKeys: number) {
    this.windows = new LRUCache({ max: maxKeys });
  }

  /** Keys held now (never more than maxKeys). */
  get size(): number {
    return this.windows.size;
  }

  /** Adds one to the key's window; the window as it now stands. */
  add(key: string, now = Date.now()): Window {
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { count: 0, resetAt: now + WINDOW_MS };
      this.windows.set(key, window);
    }
    window.count += 1;
    return window;
  }

  /** The key's count in the current window, without counting. */
  count(key: string, now = Date.now()): { count: number; resetAt: number } {
    const window = this.windows.peek(key);
    return window && window.resetAt > now ? window : { count: 0, resetAt: now + WINDOW_MS };
  }
}

/** A 429 as the error handler answers library errors: its message and Retry-After shown as they are. */
class RateLimited extends Error {
  readonly status = 429;
  readonly expose = true;
  readonly headers: Record<string, string>;
  constructor(resetAt: number) {
    super('Rate limit exceeded');
    this.headers = { 'Retry-After': String(Math.max(1, Math.ceil((resetAt - Date.now()) / 1000))) };
  }
}
const limited = (resetAt: number) => new RateLimited(resetAt);

/**
 * The address failures are counted for: the client address the gateway derives (X-Forwarded-For
 * only with TRUST_PROXY), an IPv6 address by its /64, as one host usually holds the whole prefix.
 */
export function clientKey(ip: string): string {
  if (!isIPv6(ip) || /^::ffff:\d/.test(ip)) return ip.replace(/^::ffff:/, '');
  const groups = expandIPv6(ip);
  return `${groups.slice(0, 4).join(':')}::/64`;
}

function expandIPv6(ip: string): string[] {
  const [head = '', tail = ''] = ip.split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = ip.includes('::') ? Array(8 - left.length - right.length).fill('0') : [];
  return [...left, ...fill, ...right].map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''));
}

export interface RequestLimits {
  /**
   * Middleware for the API: a client address that failed authentication too often in this
   * minute gets 429 for every further failure instead of 401; valid credentials are still served
   * (another client behind the same address); every failure counted against the address.
   */
  failedAuthentications: Koa.Middleware;
  /** 429 when this caller has used up its requests of the minute: the tenant's limit, else the gateway's. */
  admit(tenant: Tenant, caller: Caller): void;
  /** Keys held by the two stores (for tests and metrics). */
  sizes(): { callers: number; addresses: number };
}

/**
 * The gateway's two limits (docs/api.md, "Rate limits"), in this process: behind several
 * replicas each counts on its own. Requests per minute per authenticated caller (the API
 * token's id, or the JWT's issuer and subject, within its tenant), checked after
 * authentication, so a bogus or re-spelled token never gets a bucket of its own; and failed
 * authentications per minute per client address, checked before, so guessing is slow.
 */
export function requestLimits(config: GatewayConfig, recognised: (ctx: Koa.Context) => boolean): RequestLimits {
  const callers = new WindowCounter(config.RATE_LIMIT_MAX_KEYS);
  const addresses = new WindowCounter(config.RATE_LIMIT_MAX_KEYS);
  const maxFailures = config.AUTH_FAILURES_PER_MINUTE;
  const limitedPath = (path: string) => path.startsWith(API_PREFIX) && path !== `${API_PREFIX}/openapi.json`;

  const failedAuthentications: Koa.Middleware = async (ctx, next) => {
    if (maxFailures <= 0 || !limitedPath(ctx.path)) return next();
    const key = clientKey(ctx.ip);
    const seen = addresses.count(key);
    // A blocked address that sends valid credentials is served (tokens are not guessable; another
    // client behind the same address must not be locked out); its failures are 429, not 401.
    const blocked = seen.count >= maxFailures && !recognised(ctx);
    try {
      await next();
    } catch (err) {
      if (!(err instanceof AppError && err.kind === 'unauthenticated')) throw err;
      const window = addresses.add(key);
      if (blocked || window.count > maxFailures) throw limited(window.resetAt);
      throw err;
    }
  };

  return {
    failedAuthentications,
    admit(tenant, caller) {
      const perMinute = tenant.settings?.rate_limit?.requests_per_minute || config.RATE_LIMIT_PER_MINUTE;
      if (perMinute <= 0) return;
      // A tenant trusts one issuer, so within it a JWT's subject is its issuer and subject.
      const who = caller.token_id.startsWith('jwt:') ? `sub:${caller.user_id}` : `token:${caller.token_id}`;
      const window = callers.add(`${tenant.id}\n${who}`);
      if (window.count > perMinute) throw limited(window.resetAt);
    },
    sizes: () => ({ callers: callers.size, addresses: addresses.size }),
  };
}
