import { Schema, type Model } from 'mongoose';
import { GUARD_TTL_MS, type ClaimOutcome, type MarkOutcome, type ParentGuardStore } from '@kb/rules';
import { byIdQuery, type QueryShape } from './query-shapes';

/**
 * The guard's state on a parent document (see parent-guard.ts): `guard.deleting` {token, at}
 * while a delete holds it, `guard.claims` [{id, at}] while writes that refer to it are under
 * way. Add this path to the parent's schema; it is internal and never answered.
 */
export const parentGuardPath = { guard: { type: Schema.Types.Mixed, default: undefined } };

export interface ParentGuardState {
  deleting?: { token: string; at: Date };
  claims?: { id: string; at: Date }[];
}

/** The guard's writes on a tenant-scoped collection of parents; each is one atomic update. */
export function parentGuardStore<T>(model: Model<T>, ttlMs = GUARD_TTL_MS): ParentGuardStore {
  const staleBefore = (now: Date) => new Date(now.getTime() - ttlMs);
  /** No mark, or only an abandoned one. */
  const unmarked = (now: Date) => ({
    $or: [{ 'guard.deleting': { $exists: false } }, { 'guard.deleting.at': { $lt: staleBefore(now) } }],
  });
  /** No claim younger than the TTL. */
  const unclaimed = (now: Date) => ({ 'guard.claims': { $not: { $elemMatch: { at: { $gte: staleBefore(now) } } } } });
  const exists = async (tenantId: string, id: string) =>
    (await model.exists({ tenant_id: tenantId, _id: id })) !== null;

  return {
    async claim(tenantId, parentId, claimId, now): Promise<ClaimOutcome> {
      const res = await model.updateOne(
        { tenant_id: tenantId, _id: parentId, ...unmarked(now) },
        // Clearing the mark matters only when it was abandoned: its delete can no longer remove the parent.
        { $push: { 'guard.claims': { id: claimId, at: now } }, $unset: { 'guard.deleting': '' } },
      );
      if (res.matchedCount === 1) return 'claimed';
      return (await exists(tenantId, parentId)) ? 'deleting' : 'missing';
    },
    async release(tenantId, parentId, claimId) {
      const res = await model.updateOne(
        { tenant_id: tenantId, _id: parentId, 'guard.claims.id': claimId },
        { $pull: { 'guard.claims': { id: claimId } } },
      );
      return res.matchedCount === 1;
    },
    async mark(tenantId, parentId, token, now): Promise<MarkOutcome> {
      const res = await model.updateOne(
        { tenant_id: tenantId, _id: parentId, ...unmarked(now), ...unclaimed(now) },
        {
          $set: { 'guard.deleting': { token, at: now } },
          $pull: { 'guard.claims': { at: { $lt: staleBefore(now) } } },
        },
      );
      if (res.matchedCount === 1) return 'marked';
      const doc = await model
        .findOne({ tenant_id: tenantId, _id: parentId }, { guard: 1 })
        .lean<{ guard?: ParentGuardState }>();
      if (!doc) return 'missing';
      const fresh = (at: Date | undefined) => at !== undefined && new Date(at).getTime() >= staleBefore(now).getTime();
      return fresh(doc.guard?.deleting?.at) ? 'deleting' : 'claimed';
    },
    async unmark(tenantId, parentId, token) {
      await model.updateOne(
        { tenant_id: tenantId, _id: parentId, 'guard.deleting.token': token },
        { $unset: { 'guard.deleting': '' } },
      );
    },
    async removeMarked(tenantId, parentId, token) {
      return (
        (await model.deleteOne({ tenant_id: tenantId, _id: parentId, 'guard.deleting.token': token })).deletedCount ===
        1
      );
    },
  };
}

/** The guard's queries on a parent collection: one parent by `_id`, its guard state checked on it. */
export const parentGuardQueries = (collection: string): QueryShape =>
  byIdQuery(collection, 'parentGuardStore claim, release, mark, unmark, removeMarked', [
    'guard.deleting',
    'guard.deleting.at',
    'guard.deleting.token',
    'guard.claims',
    'guard.claims.id',
  ]);
