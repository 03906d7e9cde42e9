import { LRUCache } from 'lru-cache';
import type { Caller, similarityV1 } from '@kb/platform';

/**
 * How long what the knowledge service said counts without asking again: a caller's visibility
 * filter, and that an entry's indexed version is the one MongoDB holds. A write through this
 * gateway forgets its tenant's at once; one made elsewhere (another replica, the admin CLI) is
 * seen at most this late (docs/architecture.md, "The read path").
 */
export const ENTRY_CONFIRMED_MS = 1_000;
const ENTRIES_KEPT = 20_000;
const CALLERS_KEPT = 10_000;

/** What MongoDB said of an entry: its version, whether the index holds exactly that, whether the caller may read it. */
export interface EntryState {
  version: number;
  indexed: boolean;
  readable: boolean;
}

/** A caller's visibility filter as the knowledge service said it, with its tenant's generation then. */
interface KeptFilter {
  filter: similarityV1.EntryVisibilityFilter__Output;
  generation: number;
}

/** A caller's key for its visibility filter: everything the filter is made of. */
export const callerKey = (c: Caller) =>
  [c.tenant_id, c.role, c.user_id ?? '', c.token_id ?? '', [...(c.workspace_ids ?? [])].sort().join(',')].join(
    '\u0000',
  );

/**
 * What the knowledge service confirmed, each for ENTRY_CONFIRMED_MS: callers' visibility filters,
 * and per caller the entries' states. Each is kept with its tenant's generation when it was
 * asked for, and counts only while that generation is current.
 */
export class EntryConfirmations {
  private readonly filters = new LRUCache<string, KeptFilter>({
    max: CALLERS_KEPT,
    ttl: ENTRY_CONFIRMED_MS,
  });
  /** Per caller and entry: the version MongoDB held and whether that caller may read it (indexed ones only). */
  private readonly confirmed = new LRUCache<string, EntryState & { generation: number }>({
    max: ENTRIES_KEPT,
    ttl: ENTRY_CONFIRMED_MS,
  });
  /** Per tenant, bumped by every write through this gateway: what was confirmed before counts no more. */
  private readonly generations = new Map<string, number>();

  generation(tenant: string): number {
    return this.generations.get(tenant) ?? 0;
  }

  /** A write through this gateway: the tenant's filters and confirmed versions count no more. */
  forgetTenant(tenantId: string): void {
    this.generations.set(tenantId, this.generation(tenantId) + 1);
  }

  keepFilter(who: string, filter: similarityV1.EntryVisibilityFilter__Output, generation: number): void {
    this.filters.set(who, { filter, generation });
  }

  /** The caller's kept filter, if kept in its tenant's current generation. */
  filterOf(caller: Caller): similarityV1.EntryVisibilityFilter__Output | undefined {
    const kept = this.filters.get(callerKey(caller));
    if (kept && kept.generation === this.generation(caller.tenant_id)) return kept.filter;
    return undefined;
  }

  keepState(who: string, entryId: string, state: EntryState, generation: number): void {
    this.confirmed.set(`${who}\u0000${entryId}`, { ...state, generation });
  }

  /** The entry's kept state for this caller, if kept in `generation` at exactly `version`. */
  stateOf(who: string, entryId: string, version: number, generation: number): EntryState | undefined {
    const c = this.confirmed.get(`${who}\u0000${entryId}`);
    return c !== undefined && c.generation === generation && c.version === version ? c : undefined;
  }
}
