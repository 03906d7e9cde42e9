import { inSpan } from '@kb/platform';
import { type Embedder, wrapEmbed } from './embedder';

/**
 * The embedder with every `embed` call as a span, named and attributed as the GenAI semantic
 * conventions say (`embeddings <model>`; `gen_ai.operation.name`, `gen_ai.provider.name`,
 * `gen_ai.request.model`), so that in a trace the time the local model spends on inference
 * (which no instrumentation sees) is named instead of a gap between Elasticsearch calls. A
 * remote provider's call is a CLIENT span with its HTTP span under it; the in-process model's
 * INTERNAL.
 */
export function tracedEmbedder(embedder: Embedder, provider: string): Embedder {
  const attributes = {
    'gen_ai.operation.name': 'embeddings',
    'gen_ai.provider.name': provider,
    'gen_ai.request.model': embedder.model,
  };
  const kind = provider === 'local' ? 'internal' : 'client';
  return wrapEmbed(embedder, (texts) =>
    inSpan(
      `embeddings ${embedder.model}`,
      { kind, attributes: { ...attributes, 'kb.embedding.texts': texts.length } },
      () => embedder.embed(texts),
    ),
  );
}
