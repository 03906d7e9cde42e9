import type { mongo } from 'mongoose';
import type { IndexBacklog } from '@kb/platform';
import type { QueryShape } from './query-shapes';

type Collection = mongo.Collection;

/**
 * What an indexer still has to do, every tenant together: queued documents (counted on the
 * queue index, `queued` its filter) plus delete tombstones, and the oldest write among them.
 * Bounded in time, because a metrics scrape asks for it.
 */
export async function readIndexBacklog(
  documents: Collection,
  queued: Record<string, unknown>,
  tombstones: Collection,
): Promise<IndexBacklog> {
  const maxTimeMS = 2_000;
  const [waiting, deletions, firstWaiting, firstDeletion] = await Promise.all([
    documents.countDocuments(queued, { maxTimeMS }),
    tombstones.estimatedDocumentCount({ maxTimeMS }),
    documents.find(queued, { projection: { updated_at: 1 }, sort: { updated_at: 1 }, limit: 1, maxTimeMS }).next(),
    tombstones.find({}, { projection: { deleted_at: 1 }, sort: { deleted_at: 1 }, limit: 1, maxTimeMS }).next(),
  ]);
  const times = [firstWaiting?.updated_at, firstDeletion?.deleted_at].filter((t): t is Date => t instanceof Date);
  return {
    count: waiting + deletions,
    oldest: times.length ? new Date(Math.min(...times.map((t) => t.getTime()))) : null,
  };
}

/**
 * The backlog's queries: queued documents counted and the oldest read on the queue index
 * (`{<queued>: 1, updated_at: 1}`), the oldest tombstone on `{deleted_at: 1}` (their count is
 * the collection's metadata count, which reads no document).
 */
export const indexBacklogQueries = (documents: string, queued: string, tombstones: string): QueryShape[] => [
  { collection: documents, query: 'readIndexBacklog: queued count', eq: [queued] },
  { collection: documents, query: 'readIndexBacklog: oldest queued', eq: [queued], sort: { updated_at: 1 } },
  { collection: tombstones, query: 'readIndexBacklog: oldest tombstone', sort: { deleted_at: 1 } },
];
