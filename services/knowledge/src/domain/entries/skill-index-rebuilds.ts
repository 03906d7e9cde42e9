import type { Caller } from '@kb/platform';
import type { Entry } from '../types';

/**
 * Skill-index rebuilds of a tenant, joined: a write that asks for one gets the next rebuild that
 * starts after it asked (it reads every skill, so it names the skill just written); while one
 * runs, every write that asks meanwhile shares the one after it. N concurrent skill writes then
 * cost two rebuilds per process, not N in a row. `rebuild` itself takes the tenant's lease, so
 * rebuilds of different replicas never overlap either.
 */
export function joinedRebuilds(rebuild: (tenantId: string, caller: Caller) => Promise<Entry | null>) {
  const tenants = new Map<string, { running?: Promise<Entry | null>; next?: Promise<Entry | null> }>();
  // The rebuild is recorded as the system's, on behalf of the write that started it.
  return (tenantId: string, caller: Caller): Promise<Entry | null> => {
    const state = tenants.get(tenantId) ?? {};
    tenants.set(tenantId, state);
    if (state.next) return state.next;
    const next: Promise<Entry | null> = (state.running ?? Promise.resolve(null))
      .catch(() => null)
      .then(() => {
        state.running = next;
        state.next = undefined;
        return rebuild(tenantId, caller);
      });
    state.next = next;
    void next
      .catch(() => null)
      .then(() => {
        if (state.running === next) state.running = undefined;
        if (!state.running && !state.next) tenants.delete(tenantId);
      });
    return next;
  };
}
export type JoinedRebuilds = ReturnType<typeof joinedRebuilds>;
