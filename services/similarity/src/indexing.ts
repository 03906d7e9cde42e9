import { errors, type Client } from '@elastic/elasticsearch';
import { AppError } from '@kb/common';
import { withElasticsearch } from './data-access/es-errors';
import type { IndexManager } from './indices/index-manager';
import type { IndexKind } from './indices/names';

export const MAX_DOCUMENTS_PER_CALL = 1000;

/** A decimal string as the catalog sends prices ("12.50"). */
export const DECIMAL = /^-?\d+(\.\d+)?$/;

export const isPositiveVersion = (version: unknown) => /^\d+$/.test(String(version)) && Number(version) >= 1;

/**
 * Splits a request's documents into the valid ones and failed results: every document needs an
 * id, a tenant (the caller's, unless the caller is the system), a positive version, and passes
 * `check` (the kind's own rules).
 */
export function validDocuments<D extends { id: string; tenant_id: string; version: unknown }>(
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

/** The write target does not exist (an alias deleted behind the service's back). */
export class MissingIndexError extends Error {
  constructor(readonly index: string) {
    super(`Index ${index} does not exist`);
  }
}

export type VectorSource = 'computed' | 'cached' | 'reused';

export interface IndexResult {
  id: string;
  status: 'indexed' | 'stale' | 'failed';
  embeddings: string;
  error: string;
}

/** computed if any vector was embedded now, else cached if any came from the cache, else reused. */
export function embeddingsSummary(sources: VectorSource[]): string {
  if (sources.includes('computed')) return 'computed';
  if (sources.includes('cached')) return 'cached';
  return sources.length > 0 ? 'reused' : '';
}

/**
 * The indexed _source (tenant and vectors) of `ids` in `index`, falling back to `alias` for ids
 * a reindex target does not have yet, so a reindex under the same model keeps every vector.
 */
export async function readExisting(es: Client, index: string, alias: string, ids: string[], fields: string[]): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  if (ids.length === 0) return found;
  const read = async (from: string, wanted: string[]) => {
    const res = await withElasticsearch(() =>
      es.mget<Record<string, unknown>>({ index: from, ids: wanted, _source_includes: ['tenant_id', ...fields] }),
    );
    for (const doc of res.docs) if ('found' in doc && doc.found && doc._source) found.set(doc._id, doc._source);
  };
  await read(index, [...new Set(ids)]);
  const rest = ids.filter((id) => !found.has(id));
  if (index !== alias && rest.length > 0) await read(alias, [...new Set(rest)]);
  return found;
}

/** A bulk item error that is about Elasticsearch, not the document: retried like an outage. */
function unavailableItem(op: { status: number; error?: { type?: string } } | undefined): boolean {
  const status = op?.status ?? 0;
  // 429 and 5xx: overloaded or failing; cluster_block_exception (403): an index made read-only
  // (disk watermark, an operator) refuses every document alike until it is lifted.
  return status === 429 || status >= 500 || op?.error?.type === 'cluster_block_exception';
}

/** Elasticsearch's reason for refusing a document, with its type ("document_parsing_exception: …"). */
function refusal(error: { type?: string; reason?: string | null; caused_by?: { type?: string; reason?: string | null } }): string {
  const cause = error.caused_by?.reason && error.caused_by.reason !== error.reason ? ` (${error.caused_by.type}: ${error.caused_by.reason})` : '';
  return `${error.type ?? 'error'}: ${error.reason ?? ''}${cause}`;
}

type BulkDoc = { id: string; version: number; doc: Record<string, unknown>; sources: VectorSource[] };

/**
 * Bulk-indexes with the document version as the external version; a conflict means a newer
 * version is indexed already (stale, not an error). Refreshes before answering, so what was
 * indexed is searchable when the call returns.
 *
 * Failures split in two: Elasticsearch unable to answer now (down, 429, 5xx, a write block)
 * fails the whole call with UNAVAILABLE, to be retried; a document it refuses as it is
 * (mapping violations, a document too large for one request) is that item's `failed` result
 * with Elasticsearch's reason, and sending it again unchanged would fail again.
 */
export async function bulkWrite(
  es: Client,
  index: string,
  docs: BulkDoc[],
  alsoTo: string[] = [],
  options: { requireAlias?: boolean } = {},
): Promise<IndexResult[]> {
  if (docs.length === 0) return [];
  // require_alias: if the alias were gone, a write must fail rather than auto-create an index
  // with a guessed mapping under the alias's name.
  const requireAlias = options.requireAlias === true;
  // Results are read from the first block of items (the main target); copies to pending reindex
  // targets follow it and may be stale there without it mattering.
  const operations = [index, ...alsoTo].flatMap((target) =>
    docs.flatMap((d) => [
      { index: { _index: target, _id: d.id, version: d.version, version_type: 'external' as const, ...(requireAlias && target === index ? { require_alias: true } : {}) } },
      d.doc,
    ]),
  );
  let res;
  try {
    res = await withElasticsearch(() => es.bulk({ operations, refresh: true }));
  } catch (err) {
    if (!(err instanceof errors.ResponseError && err.statusCode === 413)) throw err;
    // Over http.max_content_length: halve the batch until the one document too large is alone.
    if (docs.length === 1) return [{ id: docs[0]!.id, status: 'failed', embeddings: embeddingsSummary(docs[0]!.sources), error: 'document_too_large: the document is larger than Elasticsearch accepts in one request (http.max_content_length)' }];
    const half = Math.ceil(docs.length / 2);
    return [...(await bulkWrite(es, index, docs.slice(0, half), alsoTo, options)), ...(await bulkWrite(es, index, docs.slice(half), alsoTo, options))];
  }
  if (res.items.some((item) => unavailableItem(item.index))) throw AppError.unavailable('Elasticsearch is unavailable');
  if (res.items.slice(0, docs.length).some((item) => item.index?.error?.type === 'index_not_found_exception')) throw new MissingIndexError(index);
  return res.items.slice(0, docs.length).map((item, i) => {
    const d = docs[i]!;
    const op = item.index!;
    if (op.status === 409) return { id: d.id, status: 'stale', embeddings: embeddingsSummary(d.sources), error: '' };
    if (op.error) return { id: d.id, status: 'failed', embeddings: embeddingsSummary(d.sources), error: refusal(op.error) };
    return { id: d.id, status: 'indexed', embeddings: embeddingsSummary(d.sources), error: '' };
  });
}

/**
 * Deletes at the given external version (an older delete never removes a newer document; an
 * id already gone is fine). With a tenant, only that tenant's documents are touched.
 */
export async function deleteDocuments(
  es: Client,
  index: string,
  refs: { id: string; version: string | number }[],
  tenantId: string | undefined,
  alsoFrom: string[] = [],
): Promise<number> {
  if (refs.length === 0) return 0;
  for (const [i, ref] of refs.entries()) {
    if (!ref.id) throw AppError.invalid([{ loc: ['documents', i, 'id'], msg: 'id is required', type: 'missing' }]);
    if (!isPositiveVersion(ref.version)) {
      throw AppError.invalid([{ loc: ['documents', i, 'version'], msg: 'version must be a positive integer', type: 'value_error' }]);
    }
  }
  let allowed = refs;
  if (tenantId !== undefined) {
    const res = await withElasticsearch(() => es.mget<{ tenant_id?: string }>({ index, ids: [...new Set(refs.map((r) => r.id))], _source_includes: ['tenant_id'] }));
    const foreign = new Set(res.docs.filter((d) => 'found' in d && d.found && d._source?.tenant_id !== tenantId).map((d) => d._id));
    allowed = refs.filter((r) => !foreign.has(r.id));
  }
  if (allowed.length === 0) return 0;
  const operations = [index, ...alsoFrom].flatMap((target) =>
    allowed.map((r) => ({ delete: { _index: target, _id: r.id, version: Number(r.version), version_type: 'external' as const } })),
  );
  const res = await withElasticsearch(() => es.bulk({ operations, refresh: true }));
  if (res.items.some((item) => (item.delete?.status ?? 0) >= 500 || item.delete?.status === 429)) throw AppError.unavailable('Elasticsearch is unavailable');
  return res.items.slice(0, allowed.length).filter((item) => item.delete?.result === 'deleted').length;
}

/** The alias (created if missing) or an existing reindex target. */
export async function resolveTarget(deps: { es: Client; indices: IndexManager }, kind: IndexKind, target: string | null | undefined): Promise<string> {
  const index = deps.indices.writeTarget(kind, target);
  await deps.indices.ensure(kind);
  if (index !== deps.indices.alias(kind)) {
    // Writing to a missing index would auto-create it with a guessed mapping.
    const exists = await withElasticsearch(() => deps.es.indices.exists({ index }));
    if (!exists) throw AppError.notFound(`Index ${index} not found`);
  }
  return index;
}
