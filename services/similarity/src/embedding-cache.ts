import { createHash } from 'node:crypto';
import type { Client } from '@elastic/elasticsearch';
import { AppError } from '@kb/common';
import { withElasticsearch } from './data-access/es-errors';
import { type Embedder, EmbedderInputError, EmbedderUnavailableError } from './embedder';
import type { IndexManager } from './indices/index-manager';
import { recordCacheLookups } from './embedding-metrics';
import { fromBase64, toBase64 } from './vectors';

export type VectorOrigin = 'computed' | 'cached';

export interface CachedVector {
  vector: Float32Array;
  origin: VectorOrigin;
}

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

export const textHash = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Embeddings by (model, sha256(text)): an in-process LRU in front of an Elasticsearch index
 * (one per model and dimension), so no text is embedded twice, across restarts too.
 */
export class EmbeddingCache {
  private readonly lru: Lru<Float32Array>;

  constructor(
    private readonly es: Client,
    private readonly indices: IndexManager,
    private readonly embedder: Embedder,
    lruSize = 20_000,
  ) {
    this.lru = new Lru(lruSize);
  }

  /** One vector per text (input order), each saying whether it was embedded now or found in the cache. */
  async vectors(texts: string[], options: { persist?: boolean } = {}): Promise<CachedVector[]> {
    const hashes = texts.map(textHash);
    const found = new Map<string, CachedVector>();
    for (const h of new Set(hashes)) {
      const v = this.lru.get(h);
      if (v) found.set(h, { vector: v, origin: 'cached' });
    }
    const missing = [...new Set(hashes)].filter((h) => !found.has(h));
    if (missing.length > 0) {
      await this.indices.ensureCache();
      const res = await withElasticsearch(() =>
        this.es.mget<{ embedding?: { f32?: string } }>({ index: this.indices.cacheIndex, ids: missing, realtime: true }),
      );
      for (const doc of res.docs) {
        const b64 = 'found' in doc && doc.found ? doc._source?.embedding?.f32 : undefined;
        if (!b64) continue;
        const vector = fromBase64(b64);
        if (vector.length !== this.embedder.dims) continue;
        this.lru.set(doc._id, vector);
        found.set(doc._id, { vector, origin: 'cached' });
      }
    }
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
    if (toEmbed.length > 0) {
      let computed: Float32Array[];
      try {
        computed = await this.embedder.embed(toEmbed.map((t) => t.text));
      } catch (err) {
        if (err instanceof EmbedderUnavailableError) throw AppError.unavailable('The embedding model is unavailable');
        if (err instanceof EmbedderInputError) throw AppError.invalid([{ loc: ['texts'], msg: err.message, type: 'value_error' }]);
        throw err;
      }
      // Search queries are kept in the LRU only: one write per search would grow the index unboundedly.
      if (options.persist !== false) await this.persist(toEmbed.map((t, i) => ({ hash: t.hash, vector: computed[i]! })));
      toEmbed.forEach(({ hash }, i) => {
        this.lru.set(hash, computed[i]!);
        found.set(hash, { vector: computed[i]!, origin: 'computed' });
      });
    }
    return hashes.map((h) => found.get(h)!);
  }

  private async persist(items: { hash: string; vector: Float32Array }[]): Promise<void> {
    const operations = items.flatMap(({ hash, vector }) => [
        { index: { _index: this.indices.cacheIndex, _id: hash } },
        { model: this.embedder.model, dims: this.embedder.dims, embedding: { f32: toBase64(vector) } },
      ]);
      const res = await withElasticsearch(() => this.es.bulk({ operations }));
    if (res.errors) throw AppError.unavailable('The embedding cache could not be written');
  }
}
