import { randomUUID } from 'node:crypto';
import { AppError } from '@kb/platform';

/**
 * "409 while in use" under concurrency, without transactions.
 *
 * A parent (a category, a site) may be deleted only while nothing refers to it (entries and
 * child categories; products and the default-site pointer). Checking for children and then
 * deleting is two steps, and a write that adds a child between them used to leave the child
 * on a deleted parent. The guard makes the two sides meet on the parent's own document, where
 * every update is atomic:
 *
 * - A write that makes something refer to a parent first CLAIMS it: a conditional update that
 *   adds `{id, at}` to `guard.claims` only while the parent exists and is not marked. It then
 *   writes the child and RELEASES the claim (removes it). The claim is held across the child
 *   write, so the write is visible before the release.
 * - A delete first MARKS the parent: a conditional update that sets `guard.deleting` only while
 *   no claim is held. Then it counts the children, and either removes the parent (conditional
 *   on its own mark) or unmarks it and answers 409.
 *
 * Why no child can be left on a deleted parent: a delete that removes the parent held its mark
 * from before its count until the removal. A write's claim, held from before its child write
 * until after it, cannot overlap that span: the mark is refused while a claim is held, and a
 * claim is refused while the mark is set. So the write's whole claim span lies either before
 * the mark (the child was written before the count, which sees it: 409) or after the removal
 * (the claim finds no parent: nothing is written; 404). Hence a delete answered 204 leaves
 * nothing referring to the parent, and a write that answered success has its parent: any later
 * delete counts its child. A write that meets a mark waits for the delete to end (it usually
 * ends in milliseconds): removed → not found; backed off → it claims and goes on.
 *
 * Crashes and stalls. A process can die between the steps, so both flags carry their time and
 * count as abandoned after GUARD_TTL_MS: a claim takes over an abandoned mark (the stalled
 * delete's removal, conditional on its own mark, then fails: 409), and a mark drops abandoned
 * claims. A writer whose claim was dropped (it stalled for longer than the TTL) finds out when
 * its release matches nothing; it then claims again, which succeeds only if no delete removed
 * the parent without seeing the child (such a delete marked before the child write and holds
 * its mark until it removes the parent, so the second claim meets the mark or no parent), and
 * otherwise undoes its write. That path relies on clocks of the services agreeing within the TTL.
 */
export const GUARD_TTL_MS = 30_000;
/** How long a write waits for a delete that holds the mark before it answers 409. */
export const GUARD_WAIT_MS = 2_000;
const POLL_MS = 10;

export type ClaimOutcome = 'claimed' | 'missing' | 'deleting';
export type MarkOutcome = 'marked' | 'missing' | 'deleting' | 'claimed';

/** The single-document writes the guard is made of; data-access implements them on the parent's collection. */
export interface ParentGuardStore {
  /** Adds the claim unless the parent is missing or marked (by a mark younger than the TTL, else it clears it). */
  claim(tenantId: string, parentId: string, claimId: string, now: Date): Promise<ClaimOutcome>;
  /** Removes the claim; false when it is no longer there (dropped as abandoned, or the parent is gone). */
  release(tenantId: string, parentId: string, claimId: string): Promise<boolean>;
  /** Sets the mark unless the parent is missing, marked, or claimed (claims older than the TTL are dropped). */
  mark(tenantId: string, parentId: string, token: string, now: Date): Promise<MarkOutcome>;
  unmark(tenantId: string, parentId: string, token: string): Promise<void>;
  /** Deletes the parent while it still carries this mark. */
  removeMarked(tenantId: string, parentId: string, token: string): Promise<boolean>;
}

export interface ParentGuardOptions {
  /** What the parent is called in messages: "Category", "Site". */
  what: string;
  /** The error for a parent that does not exist (404, or 422 where the parent is a body field). */
  missing: () => AppError;
  /** How long a write waits for a delete that holds the mark (GUARD_WAIT_MS). */
  waitMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A factory of four short functions over one store and one set of options (claim, mark, referring, remove). */
export function parentGuard(store: ParentGuardStore, options: ParentGuardOptions) {
  const waitMs = options.waitMs ?? GUARD_WAIT_MS;
  const beingDeleted = () => AppError.conflict(`The ${options.what.toLowerCase()} is being deleted; try again`);

  /** Claims the parent, waiting while a delete holds it; returns the claim id. */
  async function claim(tenantId: string, parentId: string): Promise<string> {
    const claimId = randomUUID();
    const until = Date.now() + waitMs;
    for (;;) {
      const outcome = await store.claim(tenantId, parentId, claimId, new Date());
      if (outcome === 'claimed') return claimId;
      if (outcome === 'missing') throw options.missing();
      if (Date.now() >= until) throw beingDeleted();
      await sleep(POLL_MS);
    }
  }

  /** Marks the parent for deletion, waiting while another delete holds it. */
  async function mark(tenantId: string, parentId: string, token: string): Promise<void> {
    const until = Date.now() + waitMs;
    for (;;) {
      const outcome = await store.mark(tenantId, parentId, token, new Date());
      if (outcome === 'marked') return;
      if (outcome === 'missing') throw options.missing();
      if (outcome === 'claimed')
        throw AppError.conflict(`${options.what} is in use: a write that refers to it is under way`);
      if (Date.now() >= until) throw beingDeleted();
      await sleep(POLL_MS);
    }
  }

  return {
    /**
     * Runs `write`, which makes something refer to the parent, under a claim on it. `undo`
     * reverses the write; it runs only when the claim was dropped during a stall longer than
     * the TTL and the parent was deleted meanwhile (see above).
     */
    async referring<T>(
      tenantId: string,
      parentId: string,
      write: () => Promise<T>,
      undo: (result: T) => Promise<void>,
    ): Promise<T> {
      const claimId = await claim(tenantId, parentId);
      let result: T;
      try {
        result = await write();
      } catch (err) {
        await store.release(tenantId, parentId, claimId).catch(() => undefined);
        throw err;
      }
      if (await store.release(tenantId, parentId, claimId)) return result;
      try {
        await store.release(tenantId, parentId, await claim(tenantId, parentId));
      } catch (err) {
        await undo(result);
        throw err;
      }
      return result;
    },

    /**
     * Deletes the parent unless `inUse` (run while it is marked) names a reason not to, which
     * becomes the 409's message.
     */
    async remove(tenantId: string, parentId: string, inUse: () => Promise<string | null>): Promise<void> {
      const token = randomUUID();
      await mark(tenantId, parentId, token);
      let reason: string | null;
      try {
        reason = await inUse();
      } catch (err) {
        await store.unmark(tenantId, parentId, token).catch(() => undefined);
        throw err;
      }
      if (reason !== null) {
        await store.unmark(tenantId, parentId, token);
        throw AppError.conflict(reason);
      }
      if (!(await store.removeMarked(tenantId, parentId, token))) {
        throw AppError.conflict(`The ${options.what.toLowerCase()} changed while it was being deleted; try again`);
      }
    },
  };
}
export type ParentGuard = ReturnType<typeof parentGuard>;
