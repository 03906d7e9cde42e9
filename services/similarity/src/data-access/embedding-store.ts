import type { Client } from '@elastic/elasticsearch';
import { AppError, sha256Hex } from '@kb/platform';
import { withElasticsearch } from '@kb/search';
import type { IndexManager } from './index-manager';
import { fromBase64, toBase64 } from './vector-encoding';

/** The id of a text's cached vector: sha256 of the text (the model is in the index name). */
export const textHash = sha256Hex;

/**
 * The embedding cache index: one document per text hash, the vector a base64 float32 string
 * inside a non-indexed object (so _source always returns it).
 */
export class EmbeddingStore {
  constructor(
    private readonly es: Client,
    private readonly indices: IndexManager,
    private readonly model: string,
    private readonly dims: number,
  ) {}

  /** The cached vectors of `hashes` that exist and have the configured width. */
  async read(hashes: string[]): Promise<Map<string, Float32Array>> {
    await this.indices.ensureCache();
    const res = await withElasticsearch(() =>
      this.es.mget<{ embedding?: { f32?: string } }>({ index: this.indices.cacheIndex, ids: hashes, realtime: true }),
    );
    const found = new Map<string, Float32Array>();
    for (const doc of res.docs) {
      const b64 = 'found' in doc && doc.found ? doc._source?.embedding?.f32 : undefined;
      if (!b64) continue;
      const vector = fromBase64(b64);
      if (vector.length === this.dims) found.set(doc._id, vector);
    }
    return found;
  }

  async write(items: { hash: string; vector: Float32Array }[]): Promise<void> {
    const operations = items.flatMap(({ hash, vector }) => [
      { index: { _index: this.indices.cacheIndex, _id: hash } },
      { model: this.model, dims: this.dims, embedding: { f32: toBase64(vector) } },
    ]);
    const res = await withElasticsearch(() => this.es.bulk({ operations }));
    if (res.errors) throw AppError.unavailable('The embedding cache could not be written');
  }
}
