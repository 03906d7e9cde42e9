import type { Lease, QueueClaims } from '@kb/indexing';
import { byIdQuery, type QueryShape } from './query-shapes';
import { Schema, type Model, type mongo } from 'mongoose';

/** Where a queued document's claim is stored: `{owner, until}`, absent when nobody holds it. */
export const CLAIM_FIELD = 'index_claim';

/** Documents no live claim holds at `now`: never claimed, given back, or held past the lease. */
export function unclaimed(now: Date): Record<string, unknown> {
  return { $or: [{ [CLAIM_FIELD]: null }, { [`${CLAIM_FIELD}.until`]: { $lt: now } }] };
}

/**
 * A queue's claims on a raw collection (the indexers work across tenants; every document is
 * named by its `_id`, unique in the collection). `queued`: what still being in the queue means
 * (e.g. `{needs_index: true}`; `{}` for tombstones, which leave by being deleted); `of` maps a
 * stored document to the domain's object. Taking is one conditional `updateMany` (a document
 * is taken only while queued and unclaimed, so two replicas never both take it) and one read of
 * what this owner now holds. With the collection's `model`, one document (a write's own
 * indexing) is taken in one round trip through mongoose (one traced operation, its tenant named).
 */
export function mongoQueueClaims<T extends { id: string; tenant_id?: string }>(
  collection: mongo.Collection,
  queued: Record<string, unknown>,
  of: (doc: mongo.Document) => T,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any of the services' models
  model?: Model<any>,
): QueueClaims<T> {
  // The collections' ids are strings (uuids), which the driver's default typing (ObjectId) does not know.
  const ids = (items: { id: string }[]) =>
    ({ _id: { $in: items.map((i) => i.id) } }) as unknown as mongo.Filter<mongo.Document>;
  return {
    async take(items, lease: Lease) {
      if (items.length === 0) return [];
      const claim = { $set: { [CLAIM_FIELD]: { owner: lease.owner, until: new Date(lease.untilMs) } } };
      const filter = { ...ids(items), ...queued, ...unclaimed(new Date()) };
      const [one] = items;
      if (items.length === 1 && one?.tenant_id && model) {
        // strict off: a tombstone's schema has no claim path, and the claim must not be dropped.
        const doc = await model
          .findOneAndUpdate({ ...filter, tenant_id: one.tenant_id }, claim, { returnDocument: 'after', strict: false })
          .lean<mongo.Document>();
        return doc ? [of({ index_seq: 0, ...doc })] : [];
      }
      await collection.updateMany(filter, claim);
      const held = await collection.find({ ...ids(items), [`${CLAIM_FIELD}.owner`]: lease.owner }).toArray();
      // A document never queued again has no counter yet: 0, which `indexedFilter` matches.
      return held.map((d) => of({ index_seq: 0, ...d }));
    },
    async extend(items, lease: Lease) {
      if (items.length === 0) return;
      await collection.updateMany(
        { ...ids(items), [`${CLAIM_FIELD}.owner`]: lease.owner },
        {
          $set: { [`${CLAIM_FIELD}.until`]: new Date(lease.untilMs) },
        },
      );
    },
    async giveBack(items, owner) {
      if (items.length === 0) return;
      await collection.updateMany(
        { ...ids(items), [`${CLAIM_FIELD}.owner`]: owner },
        {
          $unset: { [CLAIM_FIELD]: '' },
        },
      );
    },
  };
}

/**
 * The filter that marks a queued document indexed: this version, and no change since it was
 * read (its change counter; a document never re-queued has none, which `null` matches).
 */
export function indexedFilter(d: { tenant_id: string; id: string; version: number; index_seq?: number }) {
  return {
    tenant_id: d.tenant_id,
    _id: d.id,
    version: d.version,
    ...(d.index_seq === undefined ? {} : { index_seq: d.index_seq === 0 ? { $in: [null, 0] } : d.index_seq }),
  };
}

/** A claim as stored. */
export interface StoredClaim {
  owner: string;
  until: Date;
}

const claimSchema = new Schema<StoredClaim>({ owner: String, until: Date }, { _id: false });

/**
 * The paths a queued document's schema adds (knowledge entries, products): the change counter
 * (every change that queues the document adds one) and the claim (absent while nobody holds it).
 */
export const queuePaths = () => ({
  index_seq: { type: Number, default: 0 },
  [CLAIM_FIELD]: { type: claimSchema, default: undefined },
});

/**
 * The claims' queries on a queue's collection (take, extend, give back, a write's own claim,
 * and `indexedFilter`): by `_id`, the rest checked on the few documents named.
 */
export const queueClaimQueries = (collection: string, queued: string[]): QueryShape =>
  byIdQuery(collection, 'queue claims (take, extend, give back) and indexedFilter', [
    ...queued,
    'version',
    'index_seq',
    CLAIM_FIELD,
    `${CLAIM_FIELD}.until`,
    `${CLAIM_FIELD}.owner`,
  ]);
