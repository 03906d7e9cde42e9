import type { ProductInput } from '@kb/rules';
import { siteGuard } from '../site-guard';
import type { CatalogDeps } from './deps';
import { fieldsOf, planWrite, sameFields } from './fields';
import type { Product, SiteView } from '../types';

export type UpsertStatus = 'created' | 'updated' | 'unchanged';
export type EmbeddingsStatus = 'recomputed' | 'skipped' | 'pending';

export interface WriteOutcome {
  doc: Product;
  status: UpsertStatus;
  reuseVectors: boolean;
  /** Children that were waiting for this (new) parent, in their new state: index them too. */
  adopted: Product[];
}

/** New parents (external id → id) adopt their waiting children; returns those in their new state. */
export async function adoptChildren(
  deps: CatalogDeps,
  tenantId: string,
  siteId: string,
  parents: Map<string, string>,
  now: Date,
): Promise<Product[]> {
  const ids = await deps.products.adoptChildrenOf(tenantId, siteId, parents, now);
  return ids.length ? deps.products.findByIds(tenantId, ids) : [];
}

/**
 * Writes one validated product: unchanged content only records the sync; anything else is one
 * atomic upsert (a new version, to be indexed). A new parent adopts the children waiting for its external id.
 */
export async function writeProduct(
  deps: CatalogDeps,
  tenantId: string,
  site: SiteView,
  input: ProductInput,
  source = 'api',
): Promise<WriteOutcome> {
  const now = new Date();
  const fields = fieldsOf(input, source);
  const existing = fields.external_id ? await deps.products.findByKey(tenantId, site.id, fields.external_id) : null;
  const parent =
    fields.parent_external_id && !(existing && sameFields(existing, fields))
      ? await deps.products.findByKey(tenantId, site.id, fields.parent_external_id)
      : null;
  const plan = planWrite(fields, existing, parent, now);
  if (plan.kind === 'unchanged') {
    await deps.products.touch(tenantId, [plan.existing.id], now);
    return { doc: { ...plan.existing, last_synced_at: now }, status: 'unchanged', reuseVectors: true, adopted: [] };
  }
  const { doc, created } = await deps.products.upsert(tenantId, site.id, plan.key, plan.newId, plan.set, now);
  // Only a product that did not exist can have children waiting for it (later children find
  // their parent when they are written).
  const adopted =
    created && plan.externalId
      ? await adoptChildren(deps, tenantId, site.id, new Map([[plan.externalId, doc.id]]), now)
      : [];
  return { doc, status: created ? 'created' : 'updated', reuseVectors: plan.reuseVectors, adopted };
}

/** What the answer says about a written product's embeddings. */
export function embeddingsStatus(
  outcome: Pick<WriteOutcome, 'status' | 'reuseVectors'>,
  indexed: boolean,
): EmbeddingsStatus {
  if (outcome.status === 'unchanged' || outcome.reuseVectors) return 'skipped';
  return indexed ? 'recomputed' : 'pending';
}

/**
 * Runs product writes into a site under the site's claim, so a concurrent delete of the site
 * either sees the products (409) or wins first (404): no product is left on a deleted site.
 * Indexing runs after the claim is released; it only reads what was written.
 */
export function inSite<T>(
  deps: CatalogDeps,
  tenantId: string,
  site: SiteView,
  write: () => Promise<T>,
  createdBy: (result: T) => Product[],
): Promise<T> {
  // The undo (a claim dropped in a stall, the site deleted meanwhile; @kb/rules parent-guard.ts).
  // Only a product this write created can be left on the deleted site: one that existed before
  // would have made the delete a 409. It goes as a product delete would (tombstone for the index).
  const undo = async (result: T) => {
    for (const doc of createdBy(result)) await deps.products.remove(tenantId, doc.id, new Date());
  };
  return siteGuard(deps.sites).referring(tenantId, site.id, write, undo);
}

export const createdIn = (outcomes: WriteOutcome[]) => outcomes.filter((o) => o.status === 'created').map((o) => o.doc);
