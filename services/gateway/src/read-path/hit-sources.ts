import { LRUCache } from 'lru-cache';
import type { HitSources } from '@kb/search';

/** What the read path keeps by default (HIT_CACHE_CHARS): the hits of 6,000-9,000 products (0.65-1 KB of JSON each; ~7 MiB of heap). */
export const HIT_CACHE_CHARS_DEFAULT = 6_000_000;
/** The share of recent hits not kept above which searches read `_source` again (each new hit then costs a second request). */
export const LEAN_MISS_RATE = 0.1;
/** Weight of the latest search in the recent miss rate (an exponential average). */
const MISS_RATE_WEIGHT = 0.2;

/** The `_source` fields a similar search's hit carries back: what the answer shows. */
export const HIT_FIELDS = ['hit'] as const;

/**
 * Kept sources up to `maxChars` of their JSON in all (least recently used dropped first), an
 * estimate of the memory they take: a hit of the read path is 0.5–1.5 KB of JSON.
 */
export function hitSources(options: { maxChars: number; maxAliases?: number }): HitSources {
  const kept = new LRUCache<string, { version: number; source: Record<string, unknown> }>({
    maxSize: options.maxChars,
    sizeCalculation: (v, key) => key.length + JSON.stringify(v.source).length,
  });
  /** Per alias, the recent share of hits that were not kept; a new alias starts at 1 (read `_source`). */
  const missRate = new LRUCache<string, number>({ max: options.maxAliases ?? 1_000 });
  const key = (index: string, id: string) => `${index}\u0000${id}`;
  return {
    get(index, id, version) {
      const k = kept.get(key(index, id));
      return k && k.version === version ? k.source : undefined;
    },
    set(index, id, version, source) {
      kept.set(key(index, id), { version, source });
    },
    lean: (alias) => (missRate.get(alias) ?? 1) < LEAN_MISS_RATE,
    observe(alias, hits, missing) {
      if (hits === 0) return;
      const before = missRate.get(alias) ?? 1;
      missRate.set(alias, before + MISS_RATE_WEIGHT * (missing / hits - before));
    },
  };
}
