import type { Caller, similarityV1 } from '@kb/platform';
import type { Backends } from '../clients/backends';
import { callerKey, type EntryConfirmations, type EntryState } from './entry-confirmations';
import type { Found } from './entry-reads';

/** Asks the knowledge service (EntrySearchAccess); keeps the filter and the states of the entries named. */
export async function askAccess(backends: Backends, confirmations: EntryConfirmations, caller: Caller, ids: string[]) {
  const gen = confirmations.generation(caller.tenant_id);
  const res = await backends.knowledge.call('EntrySearchAccess', { caller, entry_ids: ids });
  const filter: similarityV1.EntryVisibilityFilter__Output = {
    visibilities: res.visibilities,
    owner_user_id: res.owner_user_id ?? '',
    workspace_scoped: res.workspace_scoped,
    workspace_ids: res.workspace_ids,
  };
  const who = callerKey(caller);
  confirmations.keepFilter(who, filter, gen);
  for (const e of res.entries)
    if (e.indexed) confirmations.keepState(who, e.id, { version: e.version, indexed: true, readable: e.readable }, gen);
  const states = new Map<string, EntryState>(
    res.entries.map((e) => [e.id, { version: e.version, indexed: e.indexed, readable: e.readable }]),
  );
  return { filter, states };
}

/** The caller's visibility filter: the one kept, else asked for. */
export async function visibilityFilter(backends: Backends, confirmations: EntryConfirmations, caller: Caller) {
  const kept = confirmations.filterOf(caller);
  if (kept) return kept;
  return (await askAccess(backends, confirmations, caller, [])).filter;
}

/**
 * The hits MongoDB agrees with: those the caller may read as stored now (deleted entries left
 * out); undefined when one is held in another version or is still being indexed (the knowledge
 * service answers then).
 */
export async function currentHits(
  backends: Backends,
  confirmations: EntryConfirmations,
  caller: Caller,
  found: Found[],
): Promise<Found[] | undefined> {
  const who = callerKey(caller);
  const gen = confirmations.generation(caller.tenant_id);
  const known = (f: Found) => confirmations.stateOf(who, f.ranked.id, f.ranked.version, gen);
  // Read once: a confirmation that expires while the knowledge service is asked about the
  // others still counts for this search (read again, its hit would be taken for deleted).
  const confirmedNow = new Map(found.map((f) => [f.ranked.id, known(f)]));
  const unknown = found.filter((f) => !confirmedNow.get(f.ranked.id));
  const { states } =
    unknown.length > 0
      ? await askAccess(
          backends,
          confirmations,
          caller,
          unknown.map((f) => f.ranked.id),
        )
      : { states: new Map<string, EntryState>() };
  const kept: Found[] = [];
  for (const f of found) {
    const s = confirmedNow.get(f.ranked.id) ?? states.get(f.ranked.id);
    if (!s) continue; // deleted (the knowledge service does not know it)
    if (!s.indexed || s.version !== f.ranked.version) return undefined;
    if (s.readable) kept.push(f);
  }
  return kept;
}
