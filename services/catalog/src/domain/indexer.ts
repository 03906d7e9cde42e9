import { backgroundSpan, indexerLoop, systemCaller, type SimilarityClient } from '@kb/common';
import type { CatalogDeps } from './products';
import { indexNow, indexingRecovered } from './products';
import { onQueuedForIndex } from './products/indexing';
import type { Product, ProductDeletion } from './types';

/**
 * The background indexer: every interval, indexes the products whose current version is not
 * confirmed as indexed yet and applies pending deletions, so nothing is lost while
 * Elasticsearch or the embedder is down (the loop's rules: @kb/common indexerLoop).
 * Products the search index refused are not in its queue (see indexNow); how many there are
 * is logged once at start and with every new refusal.
 */
export function startIndexer(
  deps: CatalogDeps,
  intervalMs: number,
  batchSize = 100,
): { stop(): Promise<void>; runOnce(): Promise<number> } {
  let reported = false;

  /** Once per start: products waiting for an operator (or a new version) since earlier runs. */
  const reportIndexErrors = async () => {
    if (reported) return;
    const count = await deps.products.countIndexErrors();
    reported = true;
    if (count > 0)
      deps.logger.warn(
        { index_errors: count },
        `${count} products were refused by the search index (npm run admin -- index errors)`,
      );
  };

  /** `done`: products indexed, refused or deleted from the index. */
  const pass = async (): Promise<{ done: number; more: boolean; failed: boolean }> => {
    const similarity = deps.similarity;
    if (!similarity) return { done: 0, more: false, failed: false };
    await reportIndexErrors();
    let work = 0;
    // Reading the queues is not traced (it happens every interval); the work found is, as a
    // trace of its own (backgroundSpan).
    const deletions = await deps.products.pendingDeletions(batchSize);
    if (deletions.length) {
      const removed = await backgroundSpan(
        'remove deleted products from index',
        { 'kb.document.kind': 'products', 'kb.indexer.documents': deletions.length },
        () => removeDeleted(deps, similarity, deletions),
      );
      work += removed.done;
      // The similarity service or Elasticsearch is down: the loop tries again later.
      if (removed.failed) return { done: work, more: false, failed: true };
    }
    const pending = await deps.products.pendingIndex(batchSize * BATCHES_PER_PASS);
    if (pending.length) {
      const { done, complete } = await indexInCalls(deps, pending, batchSize);
      work += done;
      // Not all of it got through: some tenant's call failed (logged by indexNow).
      if (!complete) return { done: work, more: false, failed: true };
    }
    return { done: work, more: work >= batchSize, failed: false };
  };

  const loop = indexerLoop({ name: 'product indexer', intervalMs, logger: deps.logger, pass });
  loop.start();
  // A large bulk answers without indexing (embeddings "pending"): the next pass starts on it at once.
  const unregister = onQueuedForIndex(deps, () => loop.nudge());
  return {
    runOnce: async () => (await loop.runOnce())?.done ?? 0,
    stop: async () => {
      unregister();
      await loop.stop();
    },
  };
}

/** Calls of `batchSize` products a pass reads and indexes. */
const BATCHES_PER_PASS = 5;
/**
 * IndexProducts calls in flight at once: while one call's products are written to Elasticsearch
 * and marked here, the next call's texts are already being embedded (the embedder runs one
 * call's texts before the next's), so the model does not wait for those round trips.
 */
const CALLS_IN_FLIGHT = 2;

/**
 * Indexes `pending` in calls of `batchSize`, CALLS_IN_FLIGHT at a time; after a call that did
 * not get all of its products through (a dependency away), no further call starts.
 */
async function indexInCalls(
  deps: CatalogDeps,
  pending: Product[],
  batchSize: number,
): Promise<{ done: number; complete: boolean }> {
  const calls: Product[][] = [];
  for (let i = 0; i < pending.length; i += batchSize) calls.push(pending.slice(i, i + batchSize));
  let next = 0;
  let done = 0;
  let complete = true;
  const worker = async () => {
    while (complete && next < calls.length) {
      const call = calls[next++]!;
      const { indexed, refused } = await backgroundSpan(
        'index pending products',
        { 'kb.document.kind': 'products', 'kb.indexer.documents': call.length },
        () =>
          // A call may wait for the one before it to be embedded: the deadline is one call's per call
          // in flight. Nobody waits on these answers: the products become searchable at the index's
          // next periodic refresh rather than by a forced refresh per call (cold ingest ~0.71× →
          // ~0.77× the bare embedder: Elasticsearch's CPU halved).
          indexNow(deps, call, {
            deadlineMs: Math.max(deps.indexOnWriteMs, 10_000) * CALLS_IN_FLIGHT,
            searchableLater: true,
          }),
      );
      const answered = indexed.size + refused.size; // a refusal came through too: the service answers
      if (answered > 0) indexingRecovered(deps);
      done += answered;
      if (answered < call.length) complete = false;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CALLS_IN_FLIGHT, calls.length) }, worker));
  return { done, complete };
}

/** Applies delete tombstones to the index in order; stops at the first failure. */
async function removeDeleted(
  deps: CatalogDeps,
  similarity: SimilarityClient,
  deletions: ProductDeletion[],
): Promise<{ done: number; failed: boolean }> {
  let done = 0;
  for (const d of deletions) {
    try {
      await similarity.call(
        'DeleteProducts',
        { caller: systemCaller('catalog', d.tenant_id), documents: [{ id: d.id, version: String(d.version) }] },
        { deadlineMs: deps.indexOnWriteMs },
      );
      await deps.products.deletionDone(d.tenant_id, d.id, d.version);
      indexingRecovered(deps);
      done++;
    } catch (err) {
      deps.indexingOutage?.failed(err, { tenant_id: d.tenant_id, product_id: d.id });
      return { done, failed: true };
    }
  }
  return { done, failed: false };
}
