import { type CatalogDeps, productIndexer } from './products';

/** Products per IndexProducts call (and deletions read per pass) unless told otherwise. */
export const PRODUCTS_PER_CALL = 100;
/** Calls of `batchSize` products a pass reads and indexes. */
const BATCHES_PER_PASS = 5;
/**
 * IndexProducts calls in flight at once: while one call's products are written to Elasticsearch
 * and marked here, the next call's texts are already being embedded (the embedder runs one
 * call's texts before the next's), so the model does not wait for those round trips.
 */
const CALLS_IN_FLIGHT = 2;

/**
 * The background indexer (the rules: @kb/indexing documentIndexer): every interval, indexes the
 * products whose current version is not confirmed as indexed yet and applies pending
 * deletions, so nothing is lost while Elasticsearch or the embedder is down. Products the
 * search index refused are not in its queue; how many there are is logged once at start and
 * with every new refusal. Writes that leave products queued start its next pass at once.
 */
export function startIndexer(
  deps: CatalogDeps,
  intervalMs: number,
  batchSize = PRODUCTS_PER_CALL,
  storeUp?: () => boolean,
): { stop(): Promise<void>; runOnce(): Promise<number> } {
  const indexer = productIndexer(deps).background({
    intervalMs,
    batchSize,
    callsPerPass: BATCHES_PER_PASS,
    callsInFlight: CALLS_IN_FLIGHT,
    // A call may wait for the one before it to be embedded: the deadline is one call's per call
    // in flight. Nobody waits on these answers: the products become searchable at the index's
    // next periodic refresh rather than by a forced refresh per call (cold ingest ~0.71× →
    // ~0.77× the bare embedder: Elasticsearch's CPU halved), or when the pass that empties the
    // queue answers (its last call refreshes).
    indexDeadlineMs: Math.max(deps.indexOnWriteMs, 10_000) * CALLS_IN_FLIGHT,
    deleteDeadlineMs: deps.indexOnWriteMs,
    writeGraceMs: deps.indexOnWriteMs,
    ...(storeUp ? { storeUp } : {}),
  });
  indexer.start();
  return {
    runOnce: async () => (await indexer.runOnce())?.done ?? 0,
    stop: () => indexer.stop(),
  };
}
