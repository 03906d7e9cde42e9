import { LRUCache } from 'lru-cache';
import type { AnchorCache, StoredProduct } from '@kb/search';
import type { IndexState } from './index-watch';

/**
 * Anchors whose vectors are kept (a 384-dim field as JSON numbers is ~3 KB: ~15 MB for one field
 * each, ~45 MB at most for three). The first similar search of a tenant in a field starts reading
 * the tenant's products' vectors of that field in the background, up to this many, so that later
 * anchors seen for the first time need no read before their search (only the version check that
 * runs beside it).
 */
export const ANCHORS_KEPT = 5_000;
/**
 * How long an anchor's kept version counts as confirmed: within it, a search uses the kept
 * vectors without asking the index. A product written through this gateway is forgotten at once;
 * one written elsewhere (another replica, the import CLI) counts for at most this long.
 */
export const ANCHOR_CONFIRMED_MS = 1_000;

/**
 * A read of anchors takes at most this long (the client's request timeout): an index state first
 * seen longer ago than this was already the state when a read answered now began.
 */
const READ_BOUND_MS = 10_000;

/** The anchor cache of the similar searches, which the read-ahead also fills (with the index's state it read in). */
export type KeptAnchors = AnchorCache & { set(anchor: StoredProduct, state?: string | null): void };

/**
 * The gateway's anchors: each kept with the version it was read at. Confirmed (used without
 * asking the index) within ANCHOR_CONFIRMED_MS of its last read or check, or for as long as the
 * products index has not been written since it was read: `indexState` says the index's write
 * counters are still what they were (IndexWatch, read every INDEX_WATCH_MS).
 */
export function anchorCache(
  indexState: () => Pick<IndexState, 'value' | 'changedAt'> | undefined = () => undefined,
): KeptAnchors {
  const kept = new LRUCache<string, { anchor: StoredProduct; confirmedAt: number; state: string | undefined }>({
    max: ANCHORS_KEPT,
  });
  /** The index's state when a read answered now began, when that is known. */
  const settled = () => {
    const s = indexState();
    return s && Date.now() - s.changedAt > READ_BOUND_MS ? s.value : undefined;
  };
  const confirmed = (id: string) => {
    const k = kept.get(id);
    if (k === undefined) return false;
    if (Date.now() - k.confirmedAt < ANCHOR_CONFIRMED_MS) return true;
    return k.state !== undefined && indexState()?.value === k.state;
  };
  return {
    get: (id) => kept.get(id)?.anchor,
    /** `state`: the index's state known to hold when the read began (null: none known); default the settled one. */
    set: (anchor: StoredProduct, state?: string | null) =>
      void kept.set(anchor.id, {
        anchor,
        confirmedAt: Date.now(),
        state: state === undefined ? settled() : (state ?? undefined),
      }),
    delete: (id) => void kept.delete(id),
    confirmed,
    confirm: (id) => {
      const k = kept.get(id);
      if (!k) return;
      k.confirmedAt = Date.now();
      k.state = settled();
    },
  };
}
