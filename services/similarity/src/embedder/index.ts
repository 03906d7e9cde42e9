import { join } from 'node:path';
import type { Embedder } from './embedder';
import { OnnxEmbedder, type OnnxEmbedderOptions } from './onnx-embedder';
import { OpenAiEmbedder, type OpenAiEmbedderOptions } from './openai-embedder';

export type { Embedder } from './embedder';
export { EmbedderInputError, EmbedderUnavailableError, l2Normalize } from './embedder';
export { OnnxEmbedder, type OnnxEmbedderOptions } from './onnx-embedder';
export { OpenAiEmbedder, type OpenAiEmbedderOptions } from './openai-embedder';

export type EmbedderOptions =
  ({ provider: 'local' } & OnnxEmbedderOptions) | ({ provider: 'openai' } & OpenAiEmbedderOptions);

/** Builds the configured provider. Nothing is loaded or contacted until ready() or the first embed(). */
export function createEmbedder(options: EmbedderOptions): Embedder {
  switch (options.provider) {
    case 'local':
      return new OnnxEmbedder(options);
    case 'openai':
      return new OpenAiEmbedder(options);
  }
}

/** The file names the model installer uses inside its model directory. */
export function modelFilesIn(dir: string): { modelPath: string; tokenizerPath: string } {
  return { modelPath: join(dir, 'model.onnx'), tokenizerPath: join(dir, 'tokenizer.json') };
}
