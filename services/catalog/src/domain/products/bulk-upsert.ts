import { AppError, requireScope, type Caller } from '@kb/platform';
import { BULK_LIMIT } from '@kb/rules';
import type { DecodedProduct } from '../product-input';
import { requireSite, timeLeft, type CatalogDeps } from './deps';
import { productIndexer, queuedForIndex } from './indexing';
import { writeBatch, type BatchWrite, type BulkItem } from './write-batch';
import { createdIn, embeddingsStatus, inSite } from './write';
import type { Product, SiteView } from '../types';

export type { BulkItem } from './write-batch';

/** Bulk writes index at most this many changed products before answering. */
const INLINE_BULK_MAX = 100;
const INDEX_CALL_MAX = 100;

/** Many products into a site for a caller (knowledge:write): at most BULK_LIMIT, else nothing is written. */
export async function bulkUpsertProducts(
  deps: CatalogDeps,
  caller: Caller,
  siteIdOrSlug: string,
  items: DecodedProduct[],
  deadline?: number,
): Promise<BulkItem[]> {
  requireScope(caller, 'knowledge:write');
  if (items.length > BULK_LIMIT) {
    throw AppError.invalid([
      {
        loc: ['body', 'products'],
        msg: `List should have at most ${BULK_LIMIT} items after validation, not ${items.length}`,
        type: 'too_long',
      },
    ]);
  }
  const site = await requireSite(deps, caller.tenant_id, siteIdOrSlug);
  return bulkUpsert(deps, caller.tenant_id, site, items, { deadline });
}

/**
 * Many products for one site: each item validated and written on its own (a bad one gets its
 * issues, the rest go on), then the written ones indexed in batches within the write bound.
 */
export async function bulkUpsert(
  deps: CatalogDeps,
  tenantId: string,
  site: SiteView,
  items: DecodedProduct[],
  options: { source?: string; onItem?: (done: number) => void; deadline?: number } = {},
): Promise<BulkItem[]> {
  const { results, written, adoptedOutside } = await inSite(
    deps,
    tenantId,
    site,
    () => writeBatch(deps, tenantId, site, items, options.source ?? 'api'),
    (b) => createdIn(b.written.map((w) => w.outcome)),
  );
  options.onItem?.(items.length);
  const indexed = await indexWritten(deps, { written, adoptedOutside }, options.deadline);
  for (const { i, outcome } of written)
    (results[i] as BulkItem).embeddings = embeddingsStatus(outcome, indexed.has(outcome.doc.id));
  return results;
}

/**
 * Indexes what a bulk changed, in calls of INDEX_CALL_MAX, within the write bound and the
 * caller's deadline (the answer must make it back); returns the ids confirmed indexed. A large
 * bulk answers without waiting (its embeddings are "pending"; the background indexer starts on
 * them at once): embedding hundreds of texts would outlast any deadline.
 */
async function indexWritten(
  deps: CatalogDeps,
  batch: Pick<BatchWrite, 'written' | 'adoptedOutside'>,
  deadline: number | undefined,
): Promise<Set<string>> {
  const changed = batch.written.filter((w) => w.outcome.status !== 'unchanged');
  const toIndex: Product[] = [
    ...changed.flatMap((w) => [w.outcome.doc, ...w.outcome.adopted]),
    ...batch.adoptedOutside,
  ];
  const indexed = new Set<string>();
  if (toIndex.length > INLINE_BULK_MAX) {
    queuedForIndex(deps);
    return indexed;
  }
  const started = Date.now();
  for (let k = 0; k < toIndex.length; k += INDEX_CALL_MAX) {
    const left = Math.min(deps.indexOnWriteMs * 4 - (Date.now() - started), timeLeft(deadline, 500));
    if (left < 200) break; // the rest is the background indexer's
    const call = toIndex.slice(k, k + INDEX_CALL_MAX);
    const outcome = await productIndexer(deps).indexNow(call, { deadlineMs: Math.min(left, deps.indexOnWriteMs * 2) });
    for (const id of outcome.indexed.keys()) indexed.add(id);
  }
  return indexed;
}
