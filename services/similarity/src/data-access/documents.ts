import type { Client } from '@elastic/elasticsearch';
import {
  elasticsearchUnavailable,
  isRequestTooLarge,
  isTooLargeItem,
  isUnavailableItem,
  isSplitAliasItem,
  MissingIndexError,
  refusal,
  SplitAliasError,
  withElasticsearch,
} from '@kb/search';
import { searchableNow } from './refresh-coalescer';
import { vectorJson } from './vector-encoding';
import type { IndexResult } from '../domain/types';

export type VectorSource = 'computed' | 'cached' | 'reused';

/** A document to index; a Float32Array value is a vector, written as exact float32 numbers (vectorJson). */
export type BulkDoc = { id: string; version: number; doc: Record<string, unknown>; sources: VectorSource[] };
/** A document that could not be prepared for the index (one of its texts refused by the embedder): failed, not written. */
export type RefusedDoc = { id: string; refused: string };

/** computed if any vector was embedded now, else cached if any came from the cache, else reused. */
function embeddingsSummary(sources: VectorSource[]): string {
  if (sources.includes('computed')) return 'computed';
  if (sources.includes('cached')) return 'cached';
  return sources.length > 0 ? 'reused' : '';
}

/** Whether a concrete index (a reindex target) exists. */
export function indexExists(es: Client, index: string): Promise<boolean> {
  return withElasticsearch(() => es.indices.exists({ index }));
}

/**
 * The indexed _source (tenant and vectors) of `ids` in `index`, falling back to `alias` for ids
 * a reindex target does not have yet, so a reindex under the same model keeps every vector.
 */
export async function readExisting(
  es: Client,
  index: string,
  alias: string,
  ids: string[],
  fields: string[],
): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  if (ids.length === 0) return found;
  const read = async (from: string, wanted: string[]) => {
    const res = await withElasticsearch(() =>
      // Vectors are kept out of _source unless asked for (exclude_source_vectors).
      es.mget<Record<string, unknown>>(
        { index: from, ids: wanted, _source_includes: ['tenant_id', ...fields] },
        { querystring: { _source_exclude_vectors: false } },
      ),
    );
    for (const doc of res.docs) if ('found' in doc && doc.found && doc._source) found.set(doc._id, doc._source);
  };
  await read(index, [...new Set(ids)]);
  const rest = ids.filter((id) => !found.has(id));
  if (index !== alias && rest.length > 0) await read(alias, [...new Set(rest)]);
  return found;
}

/**
 * Bulk-indexes with the document version as the external version; a conflict means a newer
 * version is indexed already (stale, not an error). Unless `refresh` is false, what was indexed is
 * searchable when the call returns (a refresh shared with the writes side by side:
 * RefreshCoalescer); with false it is at the index's next periodic refresh.
 *
 * Failures split in two: Elasticsearch unable to answer now (down, a busy node's 429, 5xx, a
 * write block) fails the whole call with UNAVAILABLE, to be retried; a document it refuses as it
 * is (mapping violations, a document too large for one request or for indexing pressure) is that
 * item's `failed` result with Elasticsearch's reason, and sending it again unchanged would fail
 * again.
 *
 * Documents go in requests of at most MAX_BULK_BYTES of JSON, one after the other.
 */
export async function bulkWrite(
  es: Client,
  index: string,
  docs: BulkDoc[],
  alsoTo: string[] = [],
  options: BulkOptions = {},
): Promise<IndexResult[]> {
  const sources = docs.map((d) => documentJson(d.doc));
  const results: IndexResult[] = [];
  for (const [from, to] of bulkChunks(sources, 1 + alsoTo.length)) {
    results.push(...(await bulkRequest(es, index, docs.slice(from, to), sources.slice(from, to), alsoTo, options)));
  }
  // Searchable before answering: one refresh for all the requests, shared with the writes side by side.
  if (options.refresh !== false && docs.length > 0) await searchableNow(es, [index, ...alsoTo]);
  return results;
}

type BulkOptions = { requireAlias?: boolean; refresh?: boolean; sameVersionReplaces?: boolean };

/**
 * Bytes of document JSON one bulk request carries at most (its copies to reindex targets
 * counted): Elasticsearch refuses a request that would hold more than its indexing-pressure limit
 * (10% of the heap, with each document counted ~4×: ~13 MB of JSON on the local 512 MB node) with
 * a 429 that retrying never gets through. An entry at the content bound (~11 MB) goes alone.
 */
export const MAX_BULK_BYTES = 8 * 1024 * 1024;

/** [from, to) ranges of `sources` whose JSON (times `copies`) stays within MAX_BULK_BYTES; a larger document goes alone. */
export function bulkChunks(sources: string[], copies: number, maxBytes = MAX_BULK_BYTES): [number, number][] {
  const chunks: [number, number][] = [];
  let from = 0;
  let bytes = 0;
  sources.forEach((json, i) => {
    const size = json.length * copies; // UTF-16 units: bytes for the ASCII of vectors and keys
    if (i > from && bytes + size > maxBytes) {
      chunks.push([from, i]);
      from = i;
      bytes = 0;
    }
    bytes += size;
  });
  if (sources.length > 0) chunks.push([from, sources.length]);
  return chunks;
}

async function bulkRequest(
  es: Client,
  index: string,
  docs: BulkDoc[],
  sources: string[],
  alsoTo: string[],
  options: BulkOptions,
): Promise<IndexResult[]> {
  if (docs.length === 0) return [];
  // Too large for one request: halve the batch until the one document too large is alone.
  const split = async (subset: number[], why: string): Promise<IndexResult[]> => {
    if (subset.length === 1) {
      const d = docs[subset[0]!]!;
      return [
        { id: d.id, status: 'failed', embeddings: embeddingsSummary(d.sources), error: `document_too_large: ${why}` },
      ];
    }
    const half = Math.ceil(subset.length / 2);
    const send = (part: number[]) =>
      bulkRequest(
        es,
        index,
        part.map((i) => docs[i]!),
        part.map((i) => sources[i]!),
        alsoTo,
        options,
      );
    return [...(await send(subset.slice(0, half))), ...(await send(subset.slice(half)))];
  };
  const all = docs.map((_, i) => i);
  let res;
  try {
    res = await withElasticsearch(() =>
      es.bulk({ operations: indexOperations(index, docs, sources, alsoTo, options) }),
    );
  } catch (err) {
    if (!isRequestTooLarge(err)) throw err;
    return split(
      all,
      (err as { statusCode?: number }).statusCode === 413 ? OVER_CONTENT_LENGTH : OVER_INDEXING_PRESSURE,
    );
  }
  const unavailable = res.items.find((item) => isUnavailableItem(item.index));
  if (unavailable) throw elasticsearchUnavailable(unavailable.index?.error);
  // Results are read from the first block of items (the main target); copies to pending reindex
  // targets follow it and may be stale there without it mattering.
  const own = res.items.slice(0, docs.length);
  if (own.some((item) => item.index?.error?.type === 'index_not_found_exception')) throw new MissingIndexError(index);
  if (own.some((item) => isSplitAliasItem(item.index))) throw new SplitAliasError(index);
  // Refused by indexing pressure as larger than it ever admits: the whole shard request was, so
  // those documents go again in smaller requests (a lone one fails as too large).
  const tooLarge = all.filter((i) => isTooLargeItem(own[i]!.index));
  const resent = tooLarge.length > 0 ? await split(tooLarge, OVER_INDEXING_PRESSURE) : [];
  const written = own.flatMap((item, i): IndexResult[] => {
    if (isTooLargeItem(item.index)) return [];
    const d = docs[i]!;
    const op = item.index!;
    if (op.status === 409) return [{ id: d.id, status: 'stale', embeddings: embeddingsSummary(d.sources), error: '' }];
    if (op.error)
      return [{ id: d.id, status: 'failed', embeddings: embeddingsSummary(d.sources), error: refusal(op.error) }];
    return [{ id: d.id, status: 'indexed', embeddings: embeddingsSummary(d.sources), error: '' }];
  });
  return [...written, ...resent];
}

const OVER_CONTENT_LENGTH =
  'the document is larger than Elasticsearch accepts in one request (http.max_content_length)';
const OVER_INDEXING_PRESSURE =
  'indexing the document needs more memory than Elasticsearch admits for one request (indexing pressure, 10% of its heap)';

/**
 * `sameVersionReplaces` (entries): external_gte, so the same version written again replaces the
 * document. An entry's site assignments change without a new version (they are not part of its
 * history) and must still reach the index; an older version never replaces a newer one either way.
 */
function indexOperations(
  index: string,
  docs: BulkDoc[],
  sources: string[],
  alsoTo: string[],
  { requireAlias, sameVersionReplaces }: BulkOptions,
) {
  // require_alias: if the alias were gone, a write must fail rather than auto-create an index
  // with a guessed mapping under the alias's name.
  return [index, ...alsoTo].flatMap((target) =>
    docs.flatMap((d, i) => [
      {
        index: {
          _index: target,
          _id: d.id,
          version: d.version,
          version_type: sameVersionReplaces ? ('external_gte' as const) : ('external' as const),
          ...(requireAlias && target === index ? { require_alias: true } : {}),
        },
      },
      sources[i]!,
    ]),
  );
}

const isFloat32Array = (v: unknown): v is Float32Array => Object.prototype.toString.call(v) === '[object Float32Array]';

/** A document's JSON text (the client sends a string line as it is): JSON.stringify's, but vectors by vectorJson. */
export function documentJson(doc: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(doc)) {
    if (isFloat32Array(value)) parts.push(`${JSON.stringify(key)}:${vectorJson(value)}`);
    else {
      const json = JSON.stringify(value) as string | undefined; // undefined (and functions) are left out, as JSON.stringify does
      if (json !== undefined) parts.push(`${JSON.stringify(key)}:${json}`);
    }
  }
  return `{${parts.join(',')}}`;
}

/** The ids among `ids` indexed in `index` under another tenant than `tenantId`. */
export async function foreignIds(es: Client, index: string, ids: string[], tenantId: string): Promise<Set<string>> {
  const res = await withElasticsearch(() =>
    es.mget<{ tenant_id?: string }>({ index, ids: [...new Set(ids)], _source_includes: ['tenant_id'] }),
  );
  return new Set(
    res.docs.filter((d) => 'found' in d && d.found && d._source?.tenant_id !== tenantId).map((d) => d._id),
  );
}

/**
 * Deletes at the given external version (an older delete never removes a newer document; an
 * id already gone is fine), from `index` and every index of `alsoFrom`. Answers how many were
 * deleted from `index`.
 */
export async function deleteAtVersions(
  es: Client,
  index: string,
  refs: { id: string; version: number }[],
  alsoFrom: string[],
): Promise<number> {
  const operations = [index, ...alsoFrom].flatMap((target) =>
    refs.map((r) => ({ delete: { _index: target, _id: r.id, version: r.version, version_type: 'external' as const } })),
  );
  const res = await withElasticsearch(() => es.bulk({ operations }));
  const failed = res.items.find((item) => (item.delete?.status ?? 0) >= 500 || item.delete?.status === 429);
  if (failed) throw elasticsearchUnavailable(failed.delete?.error);
  await searchableNow(es, [index, ...alsoFrom]);
  return res.items.slice(0, refs.length).filter((item) => item.delete?.result === 'deleted').length;
}
