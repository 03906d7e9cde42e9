import { AppError, type similarityV1 } from '@kb/platform';
import { type Embedder, EmbedderInputError, EmbedderUnavailableError } from '../embedder';
import { readCaller } from './callers';

/** At most this many texts per Embed call, so one call cannot hold the model for long. */
export const MAX_TEXTS_PER_CALL = 256;

/**
 * The embedder's vectors, its errors as the service answers them: a text it cannot embed is
 * INVALID_ARGUMENT at `loc(index)`, a provider that cannot answer now UNAVAILABLE.
 */
export async function embedOrAppError(
  embedder: Embedder,
  texts: string[],
  loc: (index: number) => (string | number)[],
): Promise<Float32Array[]> {
  try {
    return await embedder.embed(texts);
  } catch (err) {
    if (err instanceof EmbedderUnavailableError) throw AppError.unavailable('The embedding model is unavailable');
    if (err instanceof EmbedderInputError)
      throw AppError.invalid([{ loc: loc(err.index), msg: err.message, type: 'value_error' }]);
    throw err;
  }
}

/** Embed: a tenant's reader embeds up to MAX_TEXTS_PER_CALL texts, uncached. */
export async function embedTexts(embedder: Embedder, req: similarityV1.EmbedRequest__Output): Promise<Float32Array[]> {
  readCaller(req.caller);
  if (req.texts.length === 0 || req.texts.length > MAX_TEXTS_PER_CALL) {
    throw AppError.invalid([{ loc: ['texts'], msg: `Between 1 and ${MAX_TEXTS_PER_CALL} texts`, type: 'value_error' }]);
  }
  return embedOrAppError(embedder, req.texts, (index) => ['texts', index]);
}
