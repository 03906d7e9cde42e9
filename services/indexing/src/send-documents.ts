import { systemCaller, type Caller, type similarityV1 } from '@kb/platform';
import {
  callInDoubt,
  emptyOutcome,
  type DocumentIndexOutcome,
  type IndexCallOptions,
  type IndexCalls,
} from './index-calls';
import { indexSplittingRefusals } from './index-refusals';
import type { IndexerState } from './indexer-state';
import type { DocumentVersion, IndexedVersion } from './index-store';
import { recordRefusal } from './refused-documents';

function byTenant<T extends { tenant_id: string }>(items: T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(item.tenant_id, [...(groups.get(item.tenant_id) ?? []), item]);
  return groups;
}

const refOf = (d: DocumentVersion): similarityV1.DocumentRef => ({ id: d.id, version: String(d.version) });

/**
 * One call (split when the whole call is refused, so only a document at fault is refused):
 * indexed versions (or stale: a newer one is indexed already) are marked, refused ones
 * recorded, both into `outcome`. Throws what is worth retrying.
 */
export async function indexGroup<D extends DocumentVersion>(
  state: IndexerState<D>,
  send: IndexCalls<D>,
  caller: Caller,
  group: D[],
  call: IndexCallOptions,
  outcome: DocumentIndexOutcome,
): Promise<void> {
  const { store } = state;
  await indexSplittingRefusals(group, (docs: D[]) => send.index(caller, docs, call), {
    answered: async (docs, res) => {
      const byId = new Map(docs.map((d) => [d.id, d]));
      const confirmed: IndexedVersion[] = [];
      for (const r of res.results) {
        const doc = byId.get(r.id);
        if (!doc) continue;
        if (r.status === 'failed') await recordRefusal(state, doc, r.error, outcome);
        else if (r.status === 'indexed' || r.status === 'stale') {
          const { id, tenant_id, version, index_seq } = doc;
          const seq = index_seq === undefined ? {} : { index_seq };
          confirmed.push({ id, tenant_id, version, ...seq, model: r.embeddings ? res.model : '' });
        }
      }
      // One write back for the whole answer; each document's own version decides what it clears.
      if (!call.targetIndex) await store.markIndexed(confirmed);
      else await store.markReindexed?.(confirmed);
      for (const c of confirmed) outcome.indexed.set(c.id, c.model);
    },
    refused: (doc, reason) => recordRefusal(state, doc, reason, outcome),
  });
}

/**
 * One call per tenant. A failed call is logged (as an outage) and the next tenant is tried,
 * unless `stopAtFailure`. Returns whether every call got through.
 */
export async function indexByTenant<D extends DocumentVersion>(
  state: IndexerState<D>,
  send: IndexCalls<D>,
  docs: D[],
  call: IndexCallOptions,
  outcome: DocumentIndexOutcome,
  stopAtFailure: boolean,
): Promise<boolean> {
  let through = true;
  for (const [tenantId, group] of byTenant(docs)) {
    try {
      await indexGroup(state, send, systemCaller(state.indexerId, tenantId), group, call, outcome);
      state.gotThrough();
    } catch (err) {
      through = false;
      if (callInDoubt(err)) for (const d of group) if (!outcome.indexed.has(d.id)) outcome.inDoubt.add(d.id);
      state.outage.failed(err, { tenant_id: tenantId, count: group.length });
      if (stopAtFailure) break;
    }
  }
  return through;
}

/** Deletions, one call per tenant; returns how many were applied and whether a call failed. */
export async function removeByTenant<D extends DocumentVersion>(
  state: IndexerState<D>,
  send: IndexCalls<D>,
  deletions: DocumentVersion[],
  deadlineMs: number | undefined,
  stopAtFailure: boolean,
): Promise<{ done: number; failed: boolean }> {
  let done = 0;
  let failed = false;
  for (const [tenantId, group] of byTenant(deletions)) {
    try {
      await send.remove(systemCaller(state.indexerId, tenantId), group.map(refOf), { deadlineMs });
      for (const d of group) await state.store.deletionDone(d);
      done += group.length;
      state.gotThrough();
    } catch (err) {
      failed = true;
      state.outage.failed(err, { tenant_id: tenantId, count: group.length });
      if (stopAtFailure) break;
    }
  }
  return { done, failed };
}

/**
 * One reindex page into `targetIndex`, in one call across tenants (`caller`: the indexer's
 * system caller without a tenant). Refusals are recorded as index errors. Throws what is worth
 * retrying: the page did not get through.
 */
export async function indexPageInto<D extends DocumentVersion>(
  state: IndexerState<D>,
  targetIndex: string,
  docs: D[],
  call: { deadlineMs?: number; caller?: Caller } = {},
): Promise<DocumentIndexOutcome> {
  const outcome = emptyOutcome();
  if (!state.calls) throw new Error('The similarity service is not known');
  const caller = call.caller ?? systemCaller(state.indexerId, '');
  await indexGroup(state, state.calls, caller, docs, { targetIndex, deadlineMs: call.deadlineMs }, outcome);
  return outcome;
}
