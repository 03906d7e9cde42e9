/** Elasticsearch's own view of a run: the work it was asked for, the products index's segments and merges. */
import type { Ctx } from './context';

/** Elasticsearch's counters of the work it was asked for (node totals, every index). */
export async function esOps(ctx: Ctx): Promise<Record<string, number>> {
  const res = await ctx.es.nodes.stats({ metric: ['indices', 'http', 'thread_pool'], index_metric: ['search', 'get'] });
  const node = Object.values(res.nodes)[0]!;
  const search = node.indices?.search;
  return {
    queries: search?.query_total ?? 0,
    fetches: search?.fetch_total ?? 0,
    scrolls: search?.scroll_total ?? 0,
    gets: node.indices?.get?.total ?? 0,
    'search threads': node.thread_pool?.['search']?.completed ?? 0,
    http: node.http?.total_opened ?? 0,
  };
}

/** Each counter's growth per request, as `name n.nn`. */
export function opsPer(before: Record<string, number>, after: Record<string, number>, requests: number): string {
  return Object.keys(after)
    .map((k) => `${k} ${((after[k]! - (before[k] ?? 0)) / Math.max(1, requests)).toFixed(2)}`)
    .join(', ');
}

/** The products index's segments now (kNN searches each segment's graph). */
export async function segmentsOf(ctx: Ctx): Promise<number> {
  const stats = await ctx.es.indices.stats({ index: ctx.index.products, metric: 'segments' });
  return stats._all.primaries?.segments?.count ?? 0;
}

/** Until the products index has no merge running (at most a minute). */
export async function mergesSettled(ctx: Ctx): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const stats = await ctx.es.indices.stats({ index: ctx.index.products, metric: 'merge' });
    if ((stats._all.primaries?.merges?.current ?? 0) === 0) return;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Documents written so far (`indexing.index_total` of the primaries: each index or update
 * operation, retries and rewrites of a document included) to the products index and to the
 * embedding cache's index (one write per text the model embedded: the cache writes what it
 * computed). Against the products loaded, whether the work was done once or repeated.
 */
export async function indexingOps(ctx: Ctx): Promise<{ products: number; embeddings: number }> {
  const total = async (index: string) => {
    const stats = await ctx.es.indices.stats({ index, metric: 'indexing' }).catch(() => undefined);
    return stats?._all.primaries?.indexing?.index_total ?? 0;
  };
  return { products: await total(ctx.index.products), embeddings: await total(ctx.index.embeddings) };
}
