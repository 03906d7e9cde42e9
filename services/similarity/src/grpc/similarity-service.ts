import type { Client } from '@elastic/elasticsearch';
import { AppError, type Logger, type similarityV1, unary, requireCaller, requireScope } from '@kb/common';
import { type Embedder, EmbedderInputError, EmbedderUnavailableError } from '../embedder';
import type { EmbeddingCache } from '../embedding-cache';
import { indexEntries } from '../entries/index-entries';
import { searchEntries } from '../entries/search-entries';
import { deleteDocuments } from '../indexing';
import type { IndexManager } from '../indices/index-manager';
import { indexProducts } from '../products/index-products';
import { searchProducts } from '../products/search-products';
import { similarProducts } from '../products/similar';
import { readCaller, writeCaller } from './callers';

/** At most this many texts per Embed call, so one call cannot hold the model for long. */
export const MAX_TEXTS_PER_CALL = 256;
export const MAX_DELETES_PER_CALL = 1000;

export interface SimilarityDeps {
  logger: Logger;
  embedder: Embedder;
  provider: string;
  es: Client;
  indices: IndexManager;
  cache: EmbeddingCache;
}

export function similarityServiceImpl(deps: SimilarityDeps): similarityV1.SimilarityServiceHandlers {
  const { embedder, logger, indices } = deps;
  const deleteFrom = (kind: 'products' | 'entries') => async (req: similarityV1.DeleteDocumentsRequest__Output) => {
    const { tenantId } = writeCaller(req.caller);
    if (req.documents.length > MAX_DELETES_PER_CALL) {
      throw AppError.invalid([{ loc: ['documents'], msg: `At most ${MAX_DELETES_PER_CALL} documents per call`, type: 'too_long' }]);
    }
    await indices.ensure(kind);
    const deleted = await deleteDocuments(deps.es, indices.alias(kind), req.documents, tenantId, await indices.pendingTargets(kind));
    return { deleted };
  };
  return {
    Embed: unary(logger, 'Embed', async (req: similarityV1.EmbedRequest__Output) => {
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
    DescribeModel: unary(logger, 'DescribeModel', async (req: similarityV1.DescribeModelRequest__Output) => {
      // Any caller, the system one (no tenant) included: reindex asks which model it builds for.
      if (!req.caller) throw new AppError('unauthenticated', 'No caller identity on the request');
      return { model: embedder.model, dims: embedder.dims, provider: deps.provider };
    }),
    IndexProducts: unary(logger, 'IndexProducts', async (req: similarityV1.IndexProductsRequest__Output) => {
      const { tenantId } = writeCaller(req.caller);
      return { model: embedder.model, results: await indexProducts(deps, req, tenantId) };
    }),
    DeleteProducts: unary(logger, 'DeleteProducts', deleteFrom('products')),
    SimilarProducts: unary(logger, 'SimilarProducts', async (req: similarityV1.SimilarProductsRequest__Output) => {
      const { tenantId } = readCaller(req.caller);
      return similarProducts(deps, req, tenantId);
    }),
    SearchProducts: unary(logger, 'SearchProducts', async (req: similarityV1.SearchProductsRequest__Output) => {
      const { tenantId } = readCaller(req.caller);
      return { hits: await searchProducts(deps, req, tenantId) };
    }),
    IndexEntries: unary(logger, 'IndexEntries', async (req: similarityV1.IndexEntriesRequest__Output) => {
      const { tenantId } = writeCaller(req.caller);
      return { model: embedder.model, results: await indexEntries(deps, req, tenantId) };
    }),
    DeleteEntries: unary(logger, 'DeleteEntries', deleteFrom('entries')),
    SearchEntries: unary(logger, 'SearchEntries', async (req: similarityV1.SearchEntriesRequest__Output) => {
      const { tenantId } = readCaller(req.caller);
      return { hits: await searchEntries(deps, req, tenantId) };
    }),
    BeginReindex: unary(logger, 'BeginReindex', async (req: similarityV1.BeginReindexRequest__Output) => {
      writeCaller(req.caller);
      return indices.beginReindex(indices.parseKind(req.kind));
    }),
    FinishReindex: unary(logger, 'FinishReindex', async (req: similarityV1.FinishReindexRequest__Output) => {
      writeCaller(req.caller);
      const done = await indices.finishReindex(indices.parseKind(req.kind), req.index);
      return { alias: done.alias, index: done.index, removed_indices: done.removed };
    }),
  };
}
