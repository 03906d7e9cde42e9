import { AppError, type similarityV1 } from '@kb/platform';
import { deleteAtVersions, foreignIds } from '../data-access/documents';
import type { IndexKind } from '@kb/search';
import { writeCaller } from './callers';
import { assertAtMostPerCall, isPositiveVersion } from './index-documents';
import type { IndexDeps } from './deps';

function assertRefs(refs: { id: string; version: string | number }[]): void {
  for (const [i, ref] of refs.entries()) {
    if (!ref.id) throw AppError.invalid([{ loc: ['documents', i, 'id'], msg: 'id is required', type: 'missing' }]);
    if (!isPositiveVersion(ref.version)) {
      throw AppError.invalid([
        { loc: ['documents', i, 'version'], msg: 'version must be a positive integer', type: 'value_error' },
      ]);
    }
  }
}

/**
 * DeleteProducts / DeleteEntries: deletes at the given external version through the alias and
 * from pending reindex targets. A tenant's caller only deletes its own tenant's documents
 * (another tenant's id is skipped, not refused). Answers how many were deleted.
 */
export async function deleteDocuments(
  deps: IndexDeps,
  kind: IndexKind,
  req: similarityV1.DeleteDocumentsRequest__Output,
): Promise<number> {
  const { tenantId } = writeCaller(req.caller);
  assertAtMostPerCall(req.documents, 'documents');
  await deps.indices.ensure(kind);
  const index = deps.indices.alias(kind);
  const alsoFrom = await deps.indices.pendingTargets(kind);
  const refs = req.documents;
  if (refs.length === 0) return 0;
  assertRefs(refs);
  const foreign =
    tenantId === undefined
      ? new Set<string>()
      : await foreignIds(
          deps.es,
          index,
          refs.map((r) => r.id),
          tenantId,
        );
  const allowed = refs.filter((r) => !foreign.has(r.id));
  if (allowed.length === 0) return 0;
  return deleteAtVersions(
    deps.es,
    index,
    allowed.map((r) => ({ id: r.id, version: Number(r.version) })),
    alsoFrom,
  );
}
