import { type Logger, type similarityV1, unary, unaryMapping } from '@kb/platform';
import type { IndexResult } from '../domain/types';
import { deleteDocuments } from '../domain/delete-documents';
import { describeModel } from '../domain/describe-model';
import { embedTexts } from '../domain/embed-texts';
import type { EmbeddingDeps } from '../domain/deps';
import { indexEntries } from '../domain/index-entries';
import { indexProducts } from '../domain/index-products';
import { purgeTenant } from '../domain/purge-tenant';
import { beginReindex, finishReindex } from '../domain/reindex';
import { searchEntries } from '../domain/search-entries';
import { searchProducts } from '../domain/search-products';
import { similarProducts } from '../domain/similar-products';
import type { Embedder } from '../embedder';

export interface SimilarityDeps extends EmbeddingDeps {
  logger: Logger;
  embedder: Embedder;
  provider: string;
  /** The languages the embedding model understands (EMBEDDING_LANGUAGES). */
  modelLanguages?: readonly string[];
  /** Throws UNAVAILABLE while Elasticsearch is known down: the methods that need it answer at once. */
  requireElasticsearch?: () => void;
}

/**
 * Each RPC: its use case, the result put in the response message. A table of one-line handlers,
 * one per RPC, so it is longer than a function usually is.
 */
export function similarityServiceImpl(deps: SimilarityDeps): similarityV1.SimilarityServiceHandlers {
  const { embedder, logger, indices } = deps;
  // Everything but Embed and DescribeModel reads or writes an index.
  const indexing = unaryMapping((err) => err, deps.requireElasticsearch);
  const embedded = (vectors: Float32Array[]) => ({
    model: embedder.model,
    dims: embedder.dims,
    vectors: vectors.map((v) => ({ values: Array.from(v) })),
  });
  const indexed = (results: IndexResult[]) => ({ model: embedder.model, results });
  const finished = (done: { alias: string; index: string; removed: string[] }) => ({
    alias: done.alias,
    index: done.index,
    removed_indices: done.removed,
  });
  return {
    Embed: unary(logger, 'Embed', async (req: similarityV1.EmbedRequest__Output) =>
      embedded(await embedTexts(embedder, req)),
    ),
    DescribeModel: unary(logger, 'DescribeModel', async (req: similarityV1.DescribeModelRequest__Output) =>
      describeModel(embedder, deps.provider, indices, req, deps.modelLanguages),
    ),
    IndexProducts: indexing(logger, 'IndexProducts', async (req: similarityV1.IndexProductsRequest__Output) =>
      indexed(await indexProducts(deps, req)),
    ),
    DeleteProducts: indexing(logger, 'DeleteProducts', async (req: similarityV1.DeleteDocumentsRequest__Output) => ({
      deleted: await deleteDocuments(deps, 'products', req),
    })),
    SimilarProducts: indexing(logger, 'SimilarProducts', async (req: similarityV1.SimilarProductsRequest__Output) =>
      similarProducts(deps, req),
    ),
    SearchProducts: indexing(logger, 'SearchProducts', async (req: similarityV1.SearchProductsRequest__Output) => ({
      hits: await searchProducts(deps, req),
    })),
    IndexEntries: indexing(logger, 'IndexEntries', async (req: similarityV1.IndexEntriesRequest__Output) =>
      indexed(await indexEntries(deps, req)),
    ),
    DeleteEntries: indexing(logger, 'DeleteEntries', async (req: similarityV1.DeleteDocumentsRequest__Output) => ({
      deleted: await deleteDocuments(deps, 'entries', req),
    })),
    SearchEntries: indexing(logger, 'SearchEntries', async (req: similarityV1.SearchEntriesRequest__Output) => ({
      hits: await searchEntries(deps, req, deps.modelLanguages),
    })),
    BeginReindex: indexing(logger, 'BeginReindex', async (req: similarityV1.BeginReindexRequest__Output) =>
      beginReindex(indices, req),
    ),
    FinishReindex: indexing(logger, 'FinishReindex', async (req: similarityV1.FinishReindexRequest__Output) =>
      finished(await finishReindex(indices, req)),
    ),
    PurgeTenant: indexing(logger, 'PurgeTenant', async (req: similarityV1.PurgeTenantRequest__Output) => ({
      indices: await purgeTenant(deps, req),
    })),
  };
}
