import type { ReindexRun, ReindexRunStore } from '@kb/indexing';
import type { mongo } from 'mongoose';
import { mongoLeases, type LeaseDoc } from './lease';
import { byIdQuery, type QueryShape } from './query-shapes';

/** A kind's last reindex run as stored: `_id` the kind (one run of a kind at a time is resumable). */
export type ReindexRunDoc = ReindexRun & { _id: string };

/**
 * Reindex progress in MongoDB (a collection of the service that reindexes the kind): one
 * document per kind, replaced as each page is finished, so `admin reindex --resume` after a
 * crash continues from the last finished page into the same target index; and the lease that
 * keeps a second run of the kind from starting beside it (`lease/<kind>`).
 */
export function mongoReindexRuns(collection: mongo.Collection<ReindexRunDoc>): ReindexRunStore {
  // One run of a kind at a time, across processes: a lease document beside the progress one.
  const leases = mongoLeases(collection as unknown as mongo.Collection<LeaseDoc>);
  const leaseName = (kind: ReindexRun['kind']) => `lease/${kind}`;
  return {
    async hold(kind, owner, ttlMs) {
      if (await leases.take(leaseName(kind), '', owner, ttlMs)) return null;
      return (await leases.holder(leaseName(kind))) ?? { owner: 'another run', until: new Date(Date.now() + ttlMs) };
    },
    renew: (kind, owner, ttlMs) => leases.renew(leaseName(kind), owner, ttlMs),
    async release(kind, owner) {
      await leases.giveBack(leaseName(kind), owner);
    },
    async last(kind) {
      const doc = await collection.findOne({ _id: kind });
      if (!doc) return null;
      const { _id, ...run } = doc;
      return run;
    },
    async save(run) {
      await collection.replaceOne({ _id: run.kind }, run, { upsert: true });
    },
  };
}

/** The progress store's queries: by kind (`_id`), and its run lease's (`lease/<kind>`, the holder checked on it). */
export const reindexRunQueries = (collection: string): QueryShape =>
  byIdQuery(collection, 'mongoReindexRuns last, save, hold, renew, release', [
    'holder',
    'holder.until',
    'holder.owner',
  ]);
