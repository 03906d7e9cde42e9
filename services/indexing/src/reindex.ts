import type { Caller, SimilarityClient } from '@kb/platform';

/** What writing one page into the new index came to. */
export interface ReindexPageOutcome {
  indexed: number;
  /** Refused as they are: any index of this mapping would refuse them too (recorded as index errors). */
  refused: number;
}

export interface ReindexPlan<D extends { id: string }> {
  kind: 'entries' | 'products';
  similarity: SimilarityClient;
  /** A system caller without a tenant: the reindex spans tenants (each document names its own). */
  caller: Caller;
  pageSize: number;
  /** The documents after `afterId` in id order, at most `limit`: one page in memory at a time. */
  page(afterId: string, limit: number): Promise<D[]>;
  /** Writes one page into `targetIndex`. Throwing counts the whole page as not indexed. */
  indexPage(docs: D[], targetIndex: string): Promise<ReindexPageOutcome>;
  /** Queues for the background indexer what was written since `since`; returns how many. */
  requeueWrittenSince(since: Date): Promise<number>;
  onBegun?(target: { index: string; alias: string }): void | Promise<void>;
  onPage?(done: number): void;
}

export interface ReindexResult {
  index: string;
  alias: string;
  /** Documents read. */
  done: number;
  indexed: number;
  refused: number;
  /** Neither indexed nor refused (a dependency away or slow): any of them keeps the alias where it was. */
  failed: number;
  /** The first error a page threw, if any. */
  error?: string;
  /** Present when the alias now points at the new index. */
  finished?: { removed_indices: string[]; requeued: number };
}

/**
 * Rebuilds a kind's index from MongoDB: a new index (BeginReindex), every document written
 * into it page by page, then the alias swapped (FinishReindex) only if nothing failed other
 * than refusals, so searches never move to an index with holes. Documents written meanwhile
 * are queued again afterwards so the background indexer sends them to the new index too
 * (external versions make that idempotent).
 */
export async function reindex<D extends { id: string }>(plan: ReindexPlan<D>): Promise<ReindexResult> {
  const { kind, similarity, caller } = plan;
  const started = new Date();
  const begun = await similarity.call('BeginReindex', { caller, kind });
  await plan.onBegun?.(begun);
  const result: ReindexResult = { index: begun.index, alias: begun.alias, done: 0, indexed: 0, refused: 0, failed: 0 };
  for (let after = ''; ;) {
    const docs = await plan.page(after, plan.pageSize);
    if (docs.length === 0) break;
    after = (docs[docs.length - 1] as D).id;
    try {
      const outcome = await plan.indexPage(docs, begun.index);
      result.indexed += outcome.indexed;
      result.refused += outcome.refused;
      result.failed += docs.length - outcome.indexed - outcome.refused;
    } catch (err) {
      result.failed += docs.length;
      result.error ??= (err as Error)?.message ?? String(err);
    }
    result.done += docs.length;
    plan.onPage?.(result.done);
  }
  if (result.failed > 0) return result;
  const finished = await similarity.call('FinishReindex', { caller, kind, index: begun.index });
  const requeued = await plan.requeueWrittenSince(started);
  return {
    ...result,
    index: finished.index,
    alias: finished.alias,
    finished: { removed_indices: finished.removed_indices, requeued },
  };
}
