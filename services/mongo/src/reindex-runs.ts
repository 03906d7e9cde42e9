import type { ReindexRun, ReindexRunStore } from '@kb/indexing';
import type { mongo } from 'mongoose';

/** A kind's last reindex run as stored: `_id` the kind (one run of a kind at a time is resumable). */
export type ReindexRunDoc = ReindexRun & { _id: string };

/**
 * Reindex progress in MongoDB (a collection of the service that reindexes the kind): one
 * document per kind, replaced as each page is finished, so `admin reindex --resume` after a
 * crash continues from the last finished page into the same target index.
 */
export function mongoReindexRuns(collection: mongo.Collection<ReindexRunDoc>): ReindexRunStore {
  return {
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
