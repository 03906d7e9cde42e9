import { DURATION_BUCKETS_S, kbMeter, type Counter, type Histogram } from '@kb/platform';
import { type Embedder, wrapEmbed } from './embedder';

/**
 * Embedding throughput as operators see it: texts embedded (`kb.embedding.texts`), the
 * latency of each call to the provider (`gen_ai.client.operation.duration`, the semantic
 * conventions' GenAI operation, `gen_ai.operation.name` "embeddings") and the embedding
 * cache's hits and misses (`kb.embedding.cache.lookups`). Attributes: `gen_ai.provider.name`
 * (EMBEDDING_PROVIDER: local or openai) and `gen_ai.request.model` (EMBEDDING_MODEL_NAME).
 */
interface Instruments {
  texts: Counter;
  duration: Histogram;
  lookups: Counter;
}

let instruments: Instruments | undefined;
function get(): Instruments {
  const meter = kbMeter();
  instruments ??= {
    texts: meter.createCounter('kb.embedding.texts', {
      description: 'Texts embedded by the model (cache hits not included).',
      unit: '{text}',
    }),
    duration: meter.createHistogram('gen_ai.client.operation.duration', {
      description: 'Duration of one embedding call to the provider (a batch of texts).',
      unit: 's',
      // Local inference of a few texts takes milliseconds; a remote provider up to seconds.
      advice: { explicitBucketBoundaries: [0.001, 0.0025, ...DURATION_BUCKETS_S, 30] },
    }),
    lookups: meter.createCounter('kb.embedding.cache.lookups', {
      description: 'Distinct texts looked up in the embedding cache, by result (hit or miss).',
      unit: '{text}',
    }),
  };
  return instruments;
}

/** The embedder with every `embed` call counted and timed; everything else passes through. */
export function measuredEmbedder(embedder: Embedder, provider: string): Embedder {
  const attributes = { 'gen_ai.provider.name': provider, 'gen_ai.request.model': embedder.model };
  const operation = { ...attributes, 'gen_ai.operation.name': 'embeddings' };
  return wrapEmbed(embedder, async (texts) => {
    const { texts: counter, duration } = get();
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const vectors = await embedder.embed(texts);
      duration.record(seconds(), operation);
      counter.add(texts.length, attributes);
      return vectors;
    } catch (err) {
      duration.record(seconds(), { ...operation, 'error.type': (err as Error)?.name || 'Error' });
      throw err;
    }
  });
}

/** One lookup of distinct texts in the embedding cache: how many were found, how many not. */
export function recordCacheLookups(model: string, hits: number, misses: number): void {
  const { lookups } = get();
  if (hits > 0) lookups.add(hits, { 'gen_ai.request.model': model, 'kb.embedding.cache.result': 'hit' });
  if (misses > 0) lookups.add(misses, { 'gen_ai.request.model': model, 'kb.embedding.cache.result': 'miss' });
}
