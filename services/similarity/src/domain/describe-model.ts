import type { similarityV1 } from '@kb/platform';
import type { Embedder } from '../embedder';
import type { IndexManager } from '../data-access/index-manager';
import { anyCaller } from './callers';

/**
 * DescribeModel: the model indices are built for, so reindex knows what it builds for, and the
 * aliases searches read and the languages the model knows, so the gateway's read path queries the
 * same indices and ranks entries the same way.
 */
export function describeModel(
  embedder: Embedder,
  provider: string,
  indices: Pick<IndexManager, 'alias'>,
  req: similarityV1.DescribeModelRequest__Output,
  languages: readonly string[] = ['en'],
): similarityV1.ModelInfo {
  anyCaller(req.caller);
  return {
    model: embedder.model,
    dims: embedder.dims,
    provider,
    products_alias: indices.alias('products'),
    entries_alias: indices.alias('entries'),
    languages: [...languages],
  };
}
