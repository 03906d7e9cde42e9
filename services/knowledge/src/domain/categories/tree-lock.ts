import { randomUUID } from 'node:crypto';
import { AppError } from '@kb/platform';
import type { CategoriesRepo } from '../../data-access/categories-repo';

/**
 * Moves of categories take turns per tenant. A move checks that the new parent is not below the
 * category (a walk up the tree) and then writes the new parent; two moves that each checked
 * before the other wrote (A under B, B under A) would both pass and make a cycle. Without
 * multi-document transactions (the local MongoDB-compatible server has none) the check and the
 * write cannot be one atomic step, so they run while the move holds the tenant's tree: a
 * conditional update of one document per tenant (`category_trees`), taken only while no other
 * move holds it. Every check therefore sees every earlier move written. Moves are rare next to
 * reads, which take no turn. Creates and moves to the top level cannot close a cycle and take none.
 *
 * A holder that crashed or stalled loses the tree after TREE_LOCK_TTL_MS; the stalled move then
 * finds out when it gives the tree back, and checks its write again (see `moving`).
 */
export const TREE_LOCK_TTL_MS = 10_000;
/** How long a move waits for its turn before it answers 409. */
export const TREE_LOCK_WAIT_MS = 5_000;
const POLL_MS = 10;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function categoryTree(categories: Pick<CategoriesRepo, 'lockTree' | 'unlockTree'>, waitMs = TREE_LOCK_WAIT_MS) {
  return {
    /**
     * Runs `move` (check and write) holding the tenant's tree. When the tree was taken over
     * meanwhile (this move stalled past the TTL), `recheck` runs after it: it undoes the write
     * if a concurrent move made it a cycle.
     */
    async moving<T>(tenantId: string, move: () => Promise<T>, recheck: (moved: T) => Promise<void>): Promise<T> {
      const token = randomUUID();
      const until = Date.now() + waitMs;
      while (!(await categories.lockTree(tenantId, token, new Date(), TREE_LOCK_TTL_MS))) {
        if (Date.now() >= until) throw AppError.conflict('Another category move is under way; try again');
        await sleep(POLL_MS);
      }
      let moved: T;
      try {
        moved = await move();
      } catch (err) {
        await categories.unlockTree(tenantId, token).catch(() => undefined);
        throw err;
      }
      if (!(await categories.unlockTree(tenantId, token))) await recheck(moved);
      return moved;
    },
  };
}
export type CategoryTree = ReturnType<typeof categoryTree>;
