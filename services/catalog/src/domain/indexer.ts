import type { CatalogDeps } from './products';
import { indexNow, indexingRecovered, systemCaller } from './products';

/**
 * The background indexer: every interval, indexes the products whose current version is not
 * confirmed as indexed yet and applies pending deletions, so nothing is lost while
 * Elasticsearch or the embedder is down. One pass at a time; failures wait for the next tick.
 */
export function startIndexer(deps: CatalogDeps, intervalMs: number, batchSize = 100): { stop(): Promise<void>; runOnce(): Promise<number> } {
  let running: Promise<number> | undefined;
  let stopped = false;

  const pass = async (): Promise<number> => {
    if (!deps.similarity) return 0;
    let work = 0;
    const deletions = await deps.products.pendingDeletions(batchSize);
    for (const d of deletions) {
      try {
        await deps.similarity.call('DeleteProducts', { caller: systemCaller(d.tenant_id), documents: [{ id: d._id, version: String(d.version) }] }, { deadlineMs: deps.indexOnWriteMs });
        await deps.products.deletionDone(d.tenant_id, d._id, d.version);
        indexingRecovered(deps);
        work++;
      } catch {
        return work; // the similarity service or Elasticsearch is down: try again next tick
      }
    }
    const pending = await deps.products.pendingIndex(batchSize);
    if (pending.length) {
      const done = (await indexNow(deps, pending, { deadlineMs: Math.max(deps.indexOnWriteMs, 10_000) })).size;
      if (done > 0) indexingRecovered(deps);
      work += done;
    }
    return work;
  };

  const runOnce = async () => {
    if (running) return running;
    running = pass()
      .catch((err: Error) => {
        deps.logger.warn({ err: err.message }, 'indexer pass failed');
        return 0;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  const tick = async () => {
    if (stopped) return;
    // Keep going while a pass finds a full batch of work; else wait for the interval.
    let n = await runOnce();
    while (!stopped && n >= batchSize) n = await runOnce();
    if (!stopped) timer = setTimeout(() => void tick(), intervalMs).unref();
  };
  let timer: NodeJS.Timeout = setTimeout(() => void tick(), intervalMs).unref();

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
