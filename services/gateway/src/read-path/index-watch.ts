import { untraced } from '@kb/platform';
import type { ElasticsearchClient } from '@kb/search';

/** What the products index's write counters said (IndexWatch): the same value, no write since `changedAt`. */
export interface IndexState {
  value: string;
  /** When this value was first seen (or the watch started). */
  changedAt: number;
  /**
   * `value` and the count of refreshes searches see (external refreshes): while it stays the
   * same, a search reads what the last one read (no write, and none made searchable, since).
   */
  searchable: string;
}

/** How often the products index's write counters are read while similar searches come in. */
export const INDEX_WATCH_MS = 500;
/** The watch stops after this long without a similar search. */
export const INDEX_WATCH_IDLE_MS = 30_000;

/**
 * The products index's write counters (primaries' index and delete totals, and the index behind
 * the alias), read every INDEX_WATCH_MS while similar searches come in: anchors read since they
 * last changed are still current, so a search needs no version check of its own. A failed read,
 * or one older than two intervals, says nothing (the searches check their anchors themselves).
 */
export function indexWatch(es: ElasticsearchClient, index: string) {
  let state: (IndexState & { seenAt: number }) | undefined;
  let lastUse = 0;
  let timer: NodeJS.Timeout | undefined;
  let first: Promise<void> | undefined;
  const poll = async () => {
    try {
      const res = await untraced(() => es.indices.stats({ index, metric: ['indexing', 'refresh'] }));
      const totals = res._all.primaries;
      const value = `${Object.keys(res.indices ?? {})
        .sort()
        .join(',')}:${totals?.indexing?.index_total ?? '?'}:${totals?.indexing?.delete_total ?? '?'}`;
      // Searches see external refreshes (scheduled, or asked for by a write); a realtime get's internal one shows them nothing.
      const searchable = `${value}:${totals?.refresh?.external_total ?? '?'}`;
      const now = Date.now();
      state =
        state?.value === value
          ? { ...state, searchable, seenAt: now }
          : { value, searchable, changedAt: now, seenAt: now };
    } catch {
      state = undefined;
    }
    if (Date.now() - lastUse > INDEX_WATCH_IDLE_MS && timer) {
      clearInterval(timer);
      timer = undefined;
      first = undefined;
      state = undefined;
    }
  };
  return {
    state: (): IndexState | undefined => (state && Date.now() - state.seenAt < 2 * INDEX_WATCH_MS ? state : undefined),
    /** A similar search came: the watch runs (started by the first); resolves once it has read the counters. */
    touch(): Promise<void> {
      lastUse = Date.now();
      if (!timer) {
        timer = setInterval(() => void poll(), INDEX_WATCH_MS);
        timer.unref();
        first = poll();
      }
      return first ?? Promise.resolve();
    },
    stop(): void {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
export type IndexWatch = ReturnType<typeof indexWatch>;

/**
 * One watch per products index the searches read (an alias: a reindex moves it), and which of
 * them the last similar search read: the kept anchors count as confirmed by that one's state.
 */
export class IndexWatches {
  private readonly watches = new Map<string, IndexWatch>();
  /** The products index the last similar search read. */
  watched: string | undefined;

  constructor(private readonly es: ElasticsearchClient) {}

  /** The index's watch, made by the first search that reads it. */
  of(index: string): IndexWatch {
    let w = this.watches.get(index);
    if (!w) this.watches.set(index, (w = indexWatch(this.es, index)));
    return w;
  }

  /** What the watch of the index the last similar search read says now (none made here). */
  watchedState(): IndexState | undefined {
    return this.watched ? this.watches.get(this.watched)?.state() : undefined;
  }

  stop(): void {
    for (const w of this.watches.values()) w.stop();
  }
}
