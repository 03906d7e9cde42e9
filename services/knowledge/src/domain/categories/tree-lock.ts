import { leasedTurns, type LeaseStore } from '../leased-turns';

/**
 * Moves of categories take turns per tenant. A move checks that the new parent is not below the
 * category (a walk up the tree) and then writes the new parent; two moves that each checked
 * before the other wrote (A under B, B under A) would both pass and make a cycle. Without
 * multi-document transactions (the local MongoDB-compatible server has none) the check and the
 * write cannot be one atomic step, so they run while the move holds the tenant's tree: the
 * lease `category-tree/<tenant>` in MongoDB (one conditional update, on any replica). Every
 * check therefore sees every earlier move written. Moves are rare next to reads, which take no
 * turn. Creates and moves to the top level cannot close a cycle and take none.
 *
 * A holder that crashed or stalled loses the tree after TREE_LOCK_TTL_MS; the stalled move then
 * finds out when it gives the tree back, and checks its write again (see `moving`).
 */
export const TREE_LOCK_TTL_MS = 10_000;
/** How long a move waits for its turn before it answers 409. */
export const TREE_LOCK_WAIT_MS = 5_000;

export function categoryTree(leases: LeaseStore, waitMs = TREE_LOCK_WAIT_MS) {
  const turns = leasedTurns(leases, 'category-tree', {
    ttlMs: TREE_LOCK_TTL_MS,
    waitMs,
    busy: 'Another category move is under way; try again',
  });
  return {
    /**
     * Runs `move` (check and write) holding the tenant's tree. When the tree was taken over
     * meanwhile (this move stalled past the TTL), `recheck` runs after it: it undoes the write
     * if a concurrent move made it a cycle.
     */
    async moving<T>(tenantId: string, move: () => Promise<T>, recheck: (moved: T) => Promise<void>): Promise<T> {
      const { result, kept } = await turns(tenantId, move);
      if (!kept) await recheck(result);
      return result;
    },
  };
}
export type CategoryTree = ReturnType<typeof categoryTree>;
