import { stopIfCallerGone } from '@kb/platform';
import type { Embedder } from '../embedder';
import { recordCacheLookups } from '../embedder/metrics';
import { textHash, type EmbeddingStore } from '../data-access/embedding-store';
import { embedOrAppError } from './embed-texts';

export type VectorOrigin = 'computed' | 'cached';

export interface CachedVector {
  vector: Float32Array;
  origin: VectorOrigin;
}

/**
 * Texts embedded (and written to the cache) at a time when a call brings more: a few seconds of
 * the model's work on two cores. A large call (an indexer pass of entries at the content bound:
 * thousands of sentences) then keeps what it embedded if its caller stops waiting, and stops
 * within one chunk instead of embedding on for nobody; the caller's retry starts where it ended.
 */
export const EMBED_CHUNK = 256;

/** A small LRU over a Map (insertion order = recency). */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }
  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
}

/**
 * Embeddings by (model, sha256(text)): an in-process LRU in front of an Elasticsearch index
 * (one per model and dimension), so no text is embedded twice, across restarts too.
 */
export class EmbeddingCache {
  private readonly lru: Lru<Float32Array>;

  constructor(
    private readonly store: EmbeddingStore,
    private readonly embedder: Embedder,
    lruSize = 20_000,
  ) {
    this.lru = new Lru(lruSize);
  }

  /** The model the vectors come from. */
  get model(): string {
    return this.embedder.model;
  }

  /** One vector per text (input order), each saying whether it was embedded now or found in the cache. */
  async vectors(texts: string[], options: { persist?: boolean } = {}): Promise<CachedVector[]> {
    const hashes = texts.map(textHash);
    const found = await this.lookUp([...new Set(hashes)]);
    const toEmbed: { hash: string; text: string }[] = [];
    const seen = new Set<string>();
    texts.forEach((text, i) => {
      const hash = hashes[i]!;
      if (!found.has(hash) && !seen.has(hash)) {
        seen.add(hash);
        toEmbed.push({ hash, text });
      }
    });
    recordCacheLookups(this.embedder.model, found.size, toEmbed.length);
    for (let from = 0; from < toEmbed.length; from += EMBED_CHUNK) {
      if (from > 0) stopIfCallerGone('the texts embedded so far are cached');
      const chunk = toEmbed.slice(from, from + EMBED_CHUNK);
      const computed = await embedOrAppError(
        this.embedder,
        chunk.map((t) => t.text),
        () => ['texts'],
      );
      // Search queries are kept in the LRU only: one write per search would grow the index unboundedly.
      if (options.persist !== false)
        await this.store.write(chunk.map((t, i) => ({ hash: t.hash, vector: computed[i]! })));
      chunk.forEach(({ hash }, i) => {
        this.lru.set(hash, computed[i]!);
        found.set(hash, { vector: computed[i]!, origin: 'computed' });
      });
    }
    return hashes.map((h) => found.get(h)!);
  }

  /** The vectors of `hashes` in the LRU, else in the cache index. */
  private async lookUp(hashes: string[]): Promise<Map<string, CachedVector>> {
    const found = new Map<string, CachedVector>();
    for (const h of hashes) {
      const v = this.lru.get(h);
      if (v) found.set(h, { vector: v, origin: 'cached' });
    }
    const missing = hashes.filter((h) => !found.has(h));
    if (missing.length === 0) return found;
    for (const [hash, vector] of await this.store.read(missing)) {
      this.lru.set(hash, vector);
      found.set(hash, { vector, origin: 'cached' });
    }
    return found;
  }
}
