import type { ReindexRun, ReindexRunStore } from '@kb/indexing';
import type { mongo } from 'mongoose';
import { byIdQuery, type QueryShape } from './query-shapes';

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

/** The progress store's queries: by kind (`_id`). */
export const reindexRunQueries = (collection: string): QueryShape =>
  byIdQuery(collection, 'mongoReindexRuns last, save');
