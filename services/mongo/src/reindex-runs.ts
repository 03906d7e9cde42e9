import { REINDEX_LEASE_MS, ReindexBusyError, type ReindexRun, type ReindexRunStore } from '@kb/indexing';
import type { mongo } from 'mongoose';
import { holdingLease, mongoLeases, type LeaseDoc } from './lease';
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
  return {
    async holding(kind, work) {
      const name = `lease/${kind}`;
      const run = await holdingLease(leases, name, '', REINDEX_LEASE_MS, work);
      if (!run.held)
        throw new ReindexBusyError(
          kind,
          run.holder ?? { owner: 'another run', until: new Date(Date.now() + REINDEX_LEASE_MS) },
        );
      return run.result;
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
  byIdQuery(collection, 'mongoReindexRuns last, save, holding', ['holder', 'holder.until', 'holder.owner']);
