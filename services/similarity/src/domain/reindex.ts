import { AppError, type similarityV1 } from '@kb/platform';
import type { IndexManager } from '../data-access/index-manager';
import { INDEX_KINDS, type IndexKind } from '@kb/search';
import { writeCaller } from './callers';

function parseKind(kind: string): IndexKind {
  if (!(INDEX_KINDS as readonly string[]).includes(kind)) {
    throw AppError.invalid([{ loc: ['kind'], msg: `kind must be one of ${INDEX_KINDS.join(', ')}`, type: 'enum' }]);
  }
  return kind as IndexKind;
}

/** BeginReindex: a new, empty index for the kind under the current model, not yet behind the alias. */
export function beginReindex(
  indices: IndexManager,
  req: similarityV1.BeginReindexRequest__Output,
): Promise<{ index: string; alias: string }> {
  writeCaller(req.caller);
  return indices.beginReindex(parseKind(req.kind));
}

/** FinishReindex: the alias swapped to the new index; the indices it left are deleted. */
export function finishReindex(
  indices: IndexManager,
  req: similarityV1.FinishReindexRequest__Output,
): Promise<{ alias: string; index: string; removed: string[] }> {
  writeCaller(req.caller);
  return indices.finishReindex(parseKind(req.kind), req.index);
}
