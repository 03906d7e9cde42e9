import { inBatches } from '@kb/indexing';
import { AppError, stopIfCallerGone } from '@kb/platform';
import { bulkWrite, indexExists, type BulkDoc, type RefusedDoc } from '../data-access/documents';
import type { IndexResult } from './types';
import type { IndexKind } from '@kb/search';
import type { EmbeddingDeps, IndexDeps } from './deps';

/** Documents per IndexProducts, IndexEntries, DeleteProducts or DeleteEntries call. */
export const MAX_DOCUMENTS_PER_CALL = 1000;

/** A decimal string as the catalog sends prices ("12.50"). */
export const DECIMAL = /^-?\d+(\.\d+)?$/;

export const isPositiveVersion = (version: unknown) => /^\d+$/.test(String(version)) && Number(version) >= 1;

/** An optional string field as stored: empty means absent. */
export const optional = (v: string | null | undefined) => (v === undefined || v === null || v === '' ? undefined : v);

/** Refuses a call carrying more than MAX_DOCUMENTS_PER_CALL items of `field`. */
export function assertAtMostPerCall(items: unknown[], field: string): void {
  if (items.length > MAX_DOCUMENTS_PER_CALL) {
    throw AppError.invalid([
      { loc: [field], msg: `At most ${MAX_DOCUMENTS_PER_CALL} ${field} per call`, type: 'too_long' },
    ]);
  }
}

/**
 * Splits a request's documents into the valid ones and failed results: every document needs an
 * id, a tenant (the caller's, unless the caller is the system), a positive version, and passes
 * `check` (the kind's own rules).
 */
function validDocuments<D extends { id: string; tenant_id: string; version: unknown }>(
  docs: D[],
  tenantId: string | undefined,
  check: (doc: D) => string | undefined,
): { valid: D[]; results: Map<string, IndexResult> } {
  const valid: D[] = [];
  const results = new Map<string, IndexResult>();
  for (const d of docs) {
    const error = !d.id
      ? 'id is required'
      : !d.tenant_id
        ? 'tenant_id is required'
        : tenantId !== undefined && d.tenant_id !== tenantId
          ? 'tenant_id is not the caller tenant'
          : !isPositiveVersion(d.version)
            ? 'version must be a positive integer'
            : check(d);
    if (error) results.set(d.id, { id: d.id, status: 'failed', embeddings: '', error });
    else valid.push(d);
  }
  return { valid, results };
}

/** The alias (created if missing) or an existing reindex target. */
async function resolveTarget(deps: IndexDeps, kind: IndexKind, target: string | null | undefined): Promise<string> {
  const index = deps.indices.writeTarget(kind, target);
  await deps.indices.ensure(kind);
  // Writing to a missing index would auto-create it with a guessed mapping.
  if (index !== deps.indices.alias(kind) && !(await indexExists(deps.es, index)))
    throw AppError.notFound(`Index ${index} not found`);
  return index;
}

/**
 * What IndexProducts and IndexEntries share: the per-call bound, the write target (plus pending
 * reindex targets when writing through the alias), the common document rules, then a bulk write
 * of what `prepare` makes of the valid documents (refreshed before answering unless
 * `searchableLater`). With `groupWeight`, documents are prepared and written a group at a time
 * (at most that summed weight, a heavier document alone): a call of several large entries makes
 * the first searchable when it is ready, not when the last is, and one whose caller stopped
 * waiting keeps the groups it wrote. Results come back in request order.
 */
export async function indexDocuments<D extends { id: string; tenant_id: string; version: unknown }>(
  deps: EmbeddingDeps,
  request: {
    kind: IndexKind;
    field: string;
    docs: D[];
    targetIndex: string | null | undefined;
    tenantId: string | undefined;
    searchableLater?: boolean;
    /** Writing the version the index holds again replaces it (see bulkWrite). */
    sameVersionReplaces?: boolean;
    groupWeight?: { of: (d: D) => number; max: number };
  },
  check: (doc: D) => string | undefined,
  prepare: (valid: D[], target: string) => Promise<(BulkDoc | RefusedDoc)[]>,
): Promise<IndexResult[]> {
  const { kind, docs } = request;
  assertAtMostPerCall(docs, request.field);
  const target = await resolveTarget(deps, kind, request.targetIndex);
  const viaAlias = target === deps.indices.alias(kind);
  const alsoTo = viaAlias ? await deps.indices.pendingTargets(kind) : [];
  const { valid, results } = validDocuments(docs, request.tenantId, check);
  const groups = request.groupWeight ? inBatches(valid, Infinity, request.groupWeight) : [valid];
  for (const [i, group] of groups.entries()) {
    if (i > 0) stopIfCallerGone('the documents written so far are kept');
    const prepared = await prepare(group, target);
    const bulk: BulkDoc[] = [];
    for (const d of prepared) {
      if ('refused' in d) results.set(d.id, { id: d.id, status: 'failed', embeddings: '', error: d.refused });
      else bulk.push(d);
    }
    const written = await deps.indices.withAlias(kind, () =>
      bulkWrite(deps.es, target, bulk, alsoTo, {
        requireAlias: viaAlias,
        refresh: !request.searchableLater,
        sameVersionReplaces: request.sameVersionReplaces === true,
      }),
    );
    for (const r of written) results.set(r.id, r);
  }
  return docs.map((d) => results.get(d.id)!);
}
