import { randomUUID } from 'node:crypto';
import { AppError } from '@kb/platform';

/** What a lease store offers (the repository's `leases`, held in MongoDB). */
export interface LeaseStore {
  take(name: string, tenantId: string, owner: string, ttlMs: number): Promise<boolean>;
  giveBack(name: string, owner: string): Promise<boolean>;
}

const POLL_MS = 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Turns per tenant across every replica: `work` runs while this attempt holds the tenant's lease
 * `name`, waiting for it up to `waitMs` (then 409: try again). A holder that crashed or stalled
 * loses the lease after `ttlMs`. `kept` is false when this attempt's time ran out while it
 * worked (another may have run beside it): the caller then makes its work good again.
 */
export function leasedTurns(
  leases: LeaseStore,
  name: string,
  options: { ttlMs: number; waitMs: number; busy: string },
) {
  return async <T>(tenantId: string, work: () => Promise<T>): Promise<{ result: T; kept: boolean }> => {
    const owner = randomUUID();
    const key = `${name}/${tenantId}`;
    const until = Date.now() + options.waitMs;
    while (!(await leases.take(key, tenantId, owner, options.ttlMs))) {
      if (Date.now() >= until) throw AppError.conflict(options.busy);
      await sleep(POLL_MS);
    }
    let result: T;
    try {
      result = await work();
    } catch (err) {
      await leases.giveBack(key, owner).catch(() => undefined);
      throw err;
    }
    return { result, kept: await leases.giveBack(key, owner) };
  };
}
export type LeasedTurns = ReturnType<typeof leasedTurns>;
