import { documentIndexer, type DocumentIndexer, type IndexStore } from '@kb/indexing';
import type { Product } from '../types';
import { indexDocument } from '../index-document';
import type { CatalogDeps } from './deps';

/** The token id the similarity service logs for the catalog's own calls. */
export const INDEXER = 'catalog';

/** The products' store as the document indexer reads and writes it: the repository's functions. */
function productStore(products: CatalogDeps['products']): IndexStore<Product> {
  return {
    pending: (limit, writtenBefore) => products.pendingIndex(limit, writtenBefore),
    pendingDeletions: (limit) => products.pendingDeletions(limit),
    deletionDone: (d) => products.deletionDone(d.tenant_id, d.id, d.version),
    // One round trip for a whole answer.
    markIndexed: (done) =>
      products.markIndexedMany(
        done.map(({ tenant_id, id, version, index_seq }) => ({ tenant_id, id, version, index_seq })),
      ),
    markRefused: (d, message, at) => products.markRefused(d.tenant_id, d.id, d.version, message, at),
    countIndexErrors: () => products.countIndexErrors(),
    backlog: () => products.indexBacklog(),
    claims: products.queueClaims,
  };
}

/** One per deps: a service's writes and its background indexer share the outage log and the writes' pause. */
const indexers = new WeakMap<CatalogDeps, DocumentIndexer<Product>>();

/** The document indexer of products: IndexProducts and DeleteProducts with the products' documents. */
export function productIndexer(deps: CatalogDeps): DocumentIndexer<Product> {
  let indexer = indexers.get(deps);
  if (indexer) return indexer;
  const similarity = deps.similarity;
  indexer = documentIndexer<Product>({
    kind: 'products',
    indexerId: INDEXER,
    store: productStore(deps.products),
    calls: similarity && {
      index: (caller, products, o) =>
        similarity.call(
          'IndexProducts',
          {
            caller,
            products: products.map((d) => indexDocument(d, Boolean(d.reuse_vectors))),
            ...(o.targetIndex ? { target_index: o.targetIndex } : {}),
            searchable_later: o.searchableLater === true,
          },
          { deadlineMs: o.deadlineMs },
        ),
      remove: (caller, documents, o) =>
        similarity.call('DeleteProducts', { caller, documents }, { deadlineMs: o.deadlineMs }),
    },
    logger: deps.logger,
    writeDeadlineMs: deps.indexOnWriteMs,
  });
  indexers.set(deps, indexer);
  return indexer;
}

/** Writes left products for the background indexer: its next pass starts now, not at the end of its interval. */
export function queuedForIndex(deps: CatalogDeps): void {
  productIndexer(deps).queued();
}

/** What an indexing attempt came to: ids confirmed indexed, and ids the search index refused. */
export interface IndexOutcome {
  indexed: Set<string>;
  refused: Set<string>;
}

/**
 * Indexes product versions now (bounded); marks what the similarity service confirmed. Never
 * throws. A product the index refuses as it is gets an `index_error` and leaves the queue until
 * it changes; anything else not confirmed (a dependency down or slow) stays `needs_index` for
 * the background indexer. A write's own indexing (`inline`) is skipped while writes do not wait
 * for the index (after a failure). With `targetIndex`, a reindex page, written across tenants
 * and not marked (the alias still points at the old index).
 */
export async function indexNow(
  deps: CatalogDeps,
  docs: Product[],
  options: { deadlineMs?: number; targetIndex?: string; inline?: boolean } = {},
): Promise<IndexOutcome> {
  const indexer = productIndexer(deps);
  const deadline = options.deadlineMs !== undefined ? { deadlineMs: options.deadlineMs } : {};
  let outcome = { indexed: new Map<string, string>(), refused: new Set<string>() };
  if (!options.targetIndex) outcome = await indexer.indexNow(docs, deadline);
  else if (deps.similarity && docs.length)
    try {
      outcome = await indexer.indexInto(options.targetIndex, docs, deadline);
    } catch (err) {
      deps.logger.warn({ count: docs.length, err: (err as Error).message }, 'reindex page not written');
    }
  return { indexed: new Set(outcome.indexed.keys()), refused: outcome.refused };
}
