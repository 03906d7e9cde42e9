import { emptyOutcome, type DocumentIndexOutcome } from './index-calls';
import type { IndexerState } from './indexer-state';
import type { DocumentVersion } from './index-store';
import { mayStillRunUntil, withClaims } from './queue-claims';
import { indexByTenant, removeByTenant } from './send-documents';

/**
 * A write's own indexing, bounded by the write's deadline (else the indexer's `writeDeadlineMs`):
 * never throws, one call per tenant. Skipped while writes do not wait for the index (after a
 * failed attempt); what is not confirmed stays queued.
 */
export async function indexOnWrite<D extends DocumentVersion>(
  state: IndexerState<D>,
  docs: D[],
  call: { deadlineMs?: number } = {},
): Promise<DocumentIndexOutcome> {
  const outcome = emptyOutcome();
  if (!state.calls || docs.length === 0 || !state.writesWait()) return outcome;
  const { calls } = state;
  const deadlineMs = call.deadlineMs ?? state.writeDeadlineMs;
  // Only what this write could claim: a document another attempt holds is being indexed by it.
  const through = await withClaims(state.store.claims?.documents, docs, async (held, { keep, settled }) => {
    const until = mayStillRunUntil(deadlineMs);
    const ok = await indexByTenant(state, calls, held, { deadlineMs }, outcome, true);
    keep(
      held.filter((d) => outcome.inDoubt.has(d.id)),
      until,
    );
    settled(outcome.indexed.keys());
    return ok;
  });
  // A write's documents are one tenant's: after a failure the write answers rather than wait again.
  if (through === false) state.writeFailed();
  return outcome;
}

/** A write's deletions, bounded, as indexOnWrite; what does not get through waits for the background indexer. */
export async function removeOnWrite<D extends DocumentVersion>(
  state: IndexerState<D>,
  deletions: DocumentVersion[],
  call: { deadlineMs?: number } = {},
): Promise<void> {
  if (!state.calls || deletions.length === 0 || !state.writesWait()) return;
  const { calls } = state;
  const deadlineMs = call.deadlineMs ?? state.writeDeadlineMs;
  const removed = await withClaims(state.store.claims?.deletions, deletions, (held) =>
    removeByTenant(state, calls, held, deadlineMs, true),
  );
  if (removed?.failed) state.writeFailed();
}
