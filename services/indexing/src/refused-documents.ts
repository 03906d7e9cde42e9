import { indexErrorMessage } from './index-errors';
import type { DocumentIndexOutcome } from './index-calls';
import type { IndexerState } from './indexer-state';
import type { DocumentVersion } from './index-store';

/**
 * The search index refused this version as it is: retrying it unchanged cannot help, so it is
 * recorded on the document (and out of the queue) until a new version or `admin index retry`,
 * and logged once, at error level.
 */
export async function recordRefusal<D extends DocumentVersion>(
  state: IndexerState<D>,
  doc: D,
  reason: string,
  outcome: DocumentIndexOutcome,
): Promise<void> {
  const { store, logger, names } = state;
  outcome.refused.add(doc.id);
  const message = indexErrorMessage(reason || 'refused without a reason');
  // False when a newer version was written meanwhile: that one is queued and gets its own try.
  if (!(await store.markRefused(doc, message, new Date()))) return;
  logger.error(
    {
      tenant_id: doc.tenant_id,
      [`${names.one}_id`]: doc.id,
      version: doc.version,
      error: message,
      index_errors: await store.countIndexErrors(),
    },
    `the search index refused ${names.a}; not retried until it changes (npm run admin -- index errors)`,
  );
}

/** Once per start: documents waiting for an operator (or a new version) since earlier runs. */
export async function reportIndexErrors<D extends DocumentVersion>(state: IndexerState<D>): Promise<void> {
  if (state.indexErrorsReported) return;
  const count = await state.store.countIndexErrors();
  state.indexErrorsReported = true;
  if (count > 0)
    state.logger.warn(
      { index_errors: count },
      `${count} ${state.kind} were refused by the search index (npm run admin -- index errors)`,
    );
}
