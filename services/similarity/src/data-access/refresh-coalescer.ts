import type { Client } from '@elastic/elasticsearch';
import { withElasticsearch } from '@kb/search';

/**
 * Makes writes searchable before they are answered, sharing refreshes between writers.
 *
 * A write that must be searchable when it is answered (a product or entry upsert, a delete) used
 * to ask its bulk request for `refresh: true`: one refresh per write. Under single-product
 * writes arriving side by side (a shop syncing product by product) every write then made a
 * Lucene segment of its own with three HNSW graphs, which merges built again and again: 500
 * upserts at 8 in flight cost 528 refreshes (41 ms each) and 11 s of merges in Elasticsearch,
 * and ingest fell to ~17 products/s against ~85 in bulks (docs/performance.md, "Writes side by
 * side share a refresh").
 *
 * `after(index)` resolves once a refresh of `index` that began after the call has finished, so
 * everything written before the call is searchable. While one refresh runs, every writer that
 * asks meanwhile waits for the next one, which starts when the running one ends and serves them
 * all: at most one refresh in flight per index, and one more queued, however many writers wait.
 * A refresh that fails rejects the writers waiting for it only (their writes are in the index;
 * they become searchable at its next periodic refresh, and a retry writes the same version
 * again, which is no change).
 */
export class RefreshCoalescer {
  private readonly indices = new Map<string, { running?: Promise<void>; next?: Promise<void> }>();

  constructor(private readonly refresh: (index: string) => Promise<void>) {}

  after(index: string): Promise<void> {
    let state = this.indices.get(index);
    if (!state) this.indices.set(index, (state = {}));
    const s = state;
    if (!s.running) {
      const running = this.refresh(index).finally(() => {
        if (s.running === running) s.running = undefined;
        if (!s.running && !s.next) this.indices.delete(index);
      });
      s.running = running;
      return running;
    }
    // The running refresh may have begun before this write: wait for the one after it.
    s.next ??= s.running
      .catch(() => undefined)
      .then(() => {
        s.next = undefined;
        return this.after(index);
      });
    return s.next;
  }
}

const coalescers = new WeakMap<Client, RefreshCoalescer>();

/** The client's coalescer (one per client, so per Elasticsearch cluster the service writes to). */
export function refreshesOf(es: Client): RefreshCoalescer {
  let c = coalescers.get(es);
  if (!c) {
    c = new RefreshCoalescer(async (index) => {
      await withElasticsearch(() => es.indices.refresh({ index, ignore_unavailable: true }));
    });
    coalescers.set(es, c);
  }
  return c;
}

/** Resolves once everything written to these indices before the call is searchable. */
export async function searchableNow(es: Client, indices: string[]): Promise<void> {
  const coalescer = refreshesOf(es);
  await Promise.all([...new Set(indices)].map((index) => coalescer.after(index)));
}
