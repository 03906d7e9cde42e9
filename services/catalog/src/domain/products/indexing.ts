import { indexErrorMessage, indexSplittingRefusals, systemCaller, type SimilarityClient } from '@kb/common';
import { indexDocument } from '../index-document';
import { indexingFailed, inlinePaused, type CatalogDeps } from './deps';
import type { Product } from '../types';

/** The running background indexer of a deps (at most one), told when writes leave products queued. */
const indexers = new WeakMap<CatalogDeps, () => void>();

/** Registers the background indexer to nudge when writes leave work for it; returns the unregistration. */
export function onQueuedForIndex(deps: CatalogDeps, nudge: () => void): () => void {
  indexers.set(deps, nudge);
  return () => {
    if (indexers.get(deps) === nudge) indexers.delete(deps);
  };
}

/** Writes left products for the background indexer: its next pass starts now, not at the end of its interval. */
export function queuedForIndex(deps: CatalogDeps): void {
  indexers.get(deps)?.();
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
 * the background indexer.
 */
export async function indexNow(
  deps: CatalogDeps,
  docs: Product[],
  options: { deadlineMs?: number; targetIndex?: string; inline?: boolean; searchableLater?: boolean } = {},
): Promise<IndexOutcome> {
  const outcome: IndexOutcome = { indexed: new Set(), refused: new Set() };
  if (!deps.similarity || docs.length === 0) return outcome;
  if (options.inline && inlinePaused(deps)) return outcome;
  const byTenant = new Map<string, Product[]>();
  for (const d of docs) byTenant.set(d.tenant_id, [...(byTenant.get(d.tenant_id) ?? []), d]);
  for (const [tenantId, group] of byTenant) {
    try {
      await indexGroup(deps, tenantId, group, options, outcome);
      deps.indexingOutage?.recovered();
    } catch (err) {
      indexingFailed(deps, Boolean(options.inline));
      const context = { tenant_id: tenantId, count: group.length };
      if (deps.indexingOutage) deps.indexingOutage.failed(err, context);
      else deps.logger.warn({ ...context, err: (err as Error).message }, 'indexing deferred to the background indexer');
      if (options.inline) break;
    }
  }
  return outcome;
}

/** One call for one tenant's products; only a product at fault is refused. Throws what is worth retrying. */
async function indexGroup(
  deps: CatalogDeps,
  tenantId: string,
  group: Product[],
  options: { deadlineMs?: number; targetIndex?: string; searchableLater?: boolean },
  outcome: IndexOutcome,
): Promise<void> {
  const call = (products: Product[]) =>
    (deps.similarity as SimilarityClient).call(
      'IndexProducts',
      {
        caller: systemCaller('catalog', tenantId),
        products: products.map((d) => indexDocument(d, Boolean(d.reuse_vectors))),
        ...(options.targetIndex ? { target_index: options.targetIndex } : {}),
        searchable_later: options.searchableLater === true,
      },
      { deadlineMs: options.deadlineMs ?? deps.indexOnWriteMs },
    );
  await indexSplittingRefusals(group, call, {
    answered: async (products, res) => {
      const byId = new Map(products.map((d) => [d.id, d]));
      const confirmed: Product[] = [];
      for (const r of res.results) {
        const d = byId.get(r.id);
        if (!d) continue;
        if (r.status === 'failed') await recordRefusal(deps, d, r.error, outcome);
        if (r.status === 'indexed' || r.status === 'stale') confirmed.push(d);
      }
      // One round trip for the whole answer; each product's own version decides what it clears.
      if (!options.targetIndex)
        await deps.products.markIndexedMany(
          confirmed.map((d) => ({ tenant_id: tenantId, id: d.id, version: d.version })),
        );
      for (const d of confirmed) outcome.indexed.add(d.id);
    },
    refused: (product, reason) => recordRefusal(deps, product, reason, outcome),
  });
}

/**
 * The search index refused this version as it is: retrying it unchanged cannot help, so it is
 * recorded on the product (and out of the queue) until a new version or `admin index retry`,
 * and logged once, at error level.
 */
async function recordRefusal(deps: CatalogDeps, doc: Product, reason: string, outcome: IndexOutcome): Promise<void> {
  outcome.refused.add(doc.id);
  const message = indexErrorMessage(reason || 'refused without a reason');
  // False when a newer version was written meanwhile: that one is queued and gets its own try.
  if (!(await deps.products.markRefused(doc.tenant_id, doc.id, doc.version, message, new Date()))) return;
  deps.logger.error(
    {
      tenant_id: doc.tenant_id,
      product_id: doc.id,
      version: doc.version,
      error: message,
      index_errors: await deps.products.countIndexErrors(),
    },
    'the search index refused a product; not retried until it changes (npm run admin -- index errors)',
  );
}
