import type { mongo } from 'mongoose';
import { claimOwner } from '@kb/indexing';
import { isDuplicateKey } from './errors';
import type { QueryShape } from './query-shapes';

/** One lease document: `_id` names what is held (e.g. `skill-index/<tenant>`), `holder` who holds it until when. */
export interface LeaseDoc {
  _id: string;
  tenant_id: string;
  holder: { owner: string; until: Date } | null;
}

/**
 * Leases held in MongoDB, one document per name: a rule that must hold for a tenant across
 * every replica (one skill-index rebuild at a time) takes the lease with one conditional
 * update, taken only while nobody holds it or the holder's time ran out.
 */
export function mongoLeases(collection: mongo.Collection<LeaseDoc>) {
  return {
    /** True when `owner` now holds `name` for `ttlMs`. */
    async take(name: string, tenantId: string, owner: string, ttlMs: number): Promise<boolean> {
      const now = new Date();
      const holder = { owner, until: new Date(now.getTime() + ttlMs) };
      const res = await collection.updateOne(
        { _id: name, $or: [{ holder: null }, { 'holder.until': { $lt: now } }] },
        { $set: { holder } },
      );
      if (res.matchedCount === 1) return true;
      try {
        await collection.insertOne({ _id: name, tenant_id: tenantId, holder });
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    },
    /** Extends `owner`'s hold of `name` by `ttlMs` from now; false when it no longer holds it. */
    async renew(name: string, owner: string, ttlMs: number): Promise<boolean> {
      const until = new Date(Date.now() + ttlMs);
      const res = await collection.updateOne({ _id: name, 'holder.owner': owner }, { $set: { 'holder.until': until } });
      return res.matchedCount === 1;
    },
    /** Who holds `name` now, if anyone (a holder whose time ran out holds nothing). */
    async holder(name: string): Promise<{ owner: string; until: Date } | null> {
      const doc = await collection.findOne({ _id: name });
      return doc?.holder && doc.holder.until.getTime() > Date.now() ? doc.holder : null;
    },
    /** Gives `name` back; false when `owner` no longer held it (its time ran out and another took it). */
    async giveBack(name: string, owner: string): Promise<boolean> {
      const res = await collection.updateOne({ _id: name, 'holder.owner': owner }, { $set: { holder: null } });
      return res.matchedCount === 1;
    },
  };
}
export type MongoLeases = ReturnType<typeof mongoLeases>;

/**
 * Runs `work` holding the lease `name` (renewed every third of `ttlMs` while it runs, given back
 * when it ends, whatever the outcome): one holder at a time across every process. When another
 * holds it, `work` does not run and its holder is answered. `lost()` turns true if a renewal
 * found the lease taken by another (this holder stalled past its time).
 */
export async function holdingLease<T>(
  leases: MongoLeases,
  name: string,
  tenantId: string,
  ttlMs: number,
  work: (lost: () => boolean) => Promise<T>,
): Promise<{ held: true; result: T } | { held: false; holder: { owner: string; until: Date } | null }> {
  const owner = claimOwner();
  if (!(await leases.take(name, tenantId, owner, ttlMs))) return { held: false, holder: await leases.holder(name) };
  let lost = false;
  const renewal = setInterval(() => {
    void leases.renew(name, owner, ttlMs).then(
      (held) => (lost ||= !held),
      () => undefined, // MongoDB away for a moment: the next renewal tries again
    );
  }, ttlMs / 3);
  renewal.unref();
  try {
    return { held: true, result: await work(() => lost) };
  } finally {
    clearInterval(renewal);
    await leases.giveBack(name, owner).catch(() => undefined);
  }
}

/** The leases' queries: by name (`_id`), the holder checked on that one document. */
export const leaseQueries = (collection: string): QueryShape => ({
  collection,
  query: 'mongoLeases take, renew, holder, giveBack',
  eq: ['_id'],
  residual: ['holder', 'holder.until', 'holder.owner'],
});
