import { LRUCache } from 'lru-cache';
import { sha256Hex } from '@kb/platform';

/**
 * The longest an API token is still accepted after it was revoked (or its tenant changed its
 * mind): the life of a cached identity. Documented in docs/threat-model.md; TOKEN_CACHE_TTL_MS
 * may lower it, never raise it.
 */
export const TOKEN_REVOCATION_BOUND_MS = 5000;
/** API tokens whose identity is kept (the least recently used go first). */
export const IDENTITY_CACHE_MAX = 10_000;

/** What a check of a token proves; `expires_at` (ISO 8601, empty for never) caps how long it is kept. */
export interface CheckedIdentity {
  expires_at?: string;
}

interface Entry<I> {
  tenantId: string;
  identity: I;
  /** Epoch ms after which the entry is not used: the TTL, or the token's own expiry if sooner. */
  until: number;
}

export interface IdentityCacheOptions {
  ttlMs: number;
  max: number;
  now?: () => number;
}

/**
 * API token identities by the token's SHA-256 (the token itself is never kept), each for at most
 * `ttlMs` and never past the token's own expiry. A token belongs to one tenant: the entry names
 * it, and a lookup from another tenant's address is a miss. Failed checks are not kept: a bogus
 * token is asked about each time (the failed-authentication limit slows that down), so a flood
 * of made-up tokens cannot push the valid ones out. Concurrent misses of one token share one check.
 */
export class IdentityCache<I extends CheckedIdentity> {
  private readonly entries: LRUCache<string, Entry<I>>;
  private readonly pending = new Map<string, Promise<I>>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor({ ttlMs, max, now = Date.now }: IdentityCacheOptions) {
    this.entries = new LRUCache({ max });
    this.ttlMs = ttlMs;
    this.now = now;
  }

  /** Entries held (never more than `max`). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * The token's identity in the tenant: the kept one while it is fresh, else what `check` (given
   * the token's hash) answers now, kept if it succeeds. A failure is thrown and forgets the token.
   */
  async identity(token: string, tenantId: string, check: (hash: string) => Promise<I>): Promise<I> {
    const hash = sha256Hex(token);
    const kept = this.fresh(hash);
    if (kept?.tenantId === tenantId) return kept.identity;
    const key = `${tenantId}\n${hash}`;
    let checking = this.pending.get(key);
    if (!checking) {
      checking = this.checkAndKeep(hash, tenantId, check).finally(() => this.pending.delete(key));
      this.pending.set(key, checking);
    }
    return checking;
  }

  /** The token passed a check within the TTL (in any tenant); no call, for the failed-authentication limit. */
  recognised(token: string): boolean {
    return this.fresh(sha256Hex(token)) !== undefined;
  }

  private fresh(hash: string): Entry<I> | undefined {
    const entry = this.entries.get(hash);
    return entry && entry.until > this.now() ? entry : undefined;
  }

  private async checkAndKeep(hash: string, tenantId: string, check: (hash: string) => Promise<I>): Promise<I> {
    const started = this.now();
    let identity: I;
    try {
      identity = await check(hash);
    } catch (err) {
      if (this.entries.peek(hash)?.tenantId === tenantId) this.entries.delete(hash);
      throw err;
    }
    // Counted from the start of the check: the answer may already be that old.
    const expiresAt = identity.expires_at ? Date.parse(identity.expires_at) : Infinity;
    const until = Math.min(started + this.ttlMs, Number.isNaN(expiresAt) ? started : expiresAt);
    if (until > this.now()) this.entries.set(hash, { tenantId, identity, until });
    else if (this.entries.peek(hash)?.tenantId === tenantId) this.entries.delete(hash);
    return identity;
  }
}
