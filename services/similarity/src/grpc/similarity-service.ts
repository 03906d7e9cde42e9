import { AppError, type Logger, type similarityV1, unary, requireCaller, requireScope } from '@kb/common';
import { type Embedder, EmbedderInputError, EmbedderUnavailableError } from '../embedder';

/** At most this many texts per Embed call, so one call cannot hold the model for long. */
export const MAX_TEXTS_PER_CALL = 256;

export function similarityServiceImpl(deps: { logger: Logger; embedder: Embedder; provider: string }): similarityV1.SimilarityServiceHandlers {
  const { embedder } = deps;
  return {
    Embed: unary(deps.logger, 'Embed', async (req: similarityV1.EmbedRequest__Output) => {
      const caller = requireCaller(req.caller);
      requireScope(caller, 'knowledge:read');
      if (req.texts.length === 0 || req.texts.length > MAX_TEXTS_PER_CALL) {
        throw AppError.invalid([{ loc: ['texts'], msg: `Between 1 and ${MAX_TEXTS_PER_CALL} texts`, type: 'value_error' }]);
      }
      try {
        const vectors = await embedder.embed(req.texts);
        return { model: embedder.model, dims: embedder.dims, vectors: vectors.map((v) => ({ values: Array.from(v) })) };
      } catch (err) {
        if (err instanceof EmbedderInputError) {
          throw AppError.invalid([{ loc: ['texts', err.index], msg: err.message, type: 'value_error' }]);
        }
        if (err instanceof EmbedderUnavailableError) throw AppError.unavailable('The embedding model is unavailable');
        throw err;
      }
    }),
    DescribeModel: unary(deps.logger, 'DescribeModel', async (req: similarityV1.DescribeModelRequest__Output) => {
      requireCaller(req.caller);
      return { model: embedder.model, dims: embedder.dims, provider: deps.provider };
    }),
    // Placeholders until the index RPCs land: callers treat UNAVAILABLE as "index later".
    ...Object.fromEntries(
      (['IndexProducts', 'DeleteProducts', 'SimilarProducts', 'SearchProducts', 'IndexEntries', 'DeleteEntries', 'SearchEntries', 'BeginReindex', 'FinishReindex'] as const).map((name) => [
        name,
        unary(deps.logger, name, async () => {
          throw AppError.unavailable(`${name} is not available yet`);
        }),
      ]),
    ),
  } as unknown as similarityV1.SimilarityServiceHandlers;
}
