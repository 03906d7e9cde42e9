import type { similarityV1 } from '@kb/common';
import type { Embedder } from '../embedder';
import { anyCaller } from './callers';

/** DescribeModel: the model indices are built for, so reindex knows what it builds for. */
export function describeModel(
  embedder: Embedder,
  provider: string,
  req: similarityV1.DescribeModelRequest__Output,
): { model: string; dims: number; provider: string } {
  anyCaller(req.caller);
  return { model: embedder.model, dims: embedder.dims, provider };
}
