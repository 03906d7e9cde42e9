import type { ValidationIssue } from '@kb/platform';
import type { ProductInput } from '@kb/rules';
import { productIssues, type DecodedProduct } from '../product-input';
import type { CatalogDeps } from './deps';
import { fieldsOf, planWrite, type WritePlan } from './fields';
import { adoptChildren, writeProduct, type EmbeddingsStatus, type UpsertStatus, type WriteOutcome } from './write';
import type { Product, SiteView } from '../types';

export interface BulkItem {
  index: number;
  status: UpsertStatus | 'error';
  id?: string;
  embeddings?: EmbeddingsStatus;
  errors?: ValidationIssue[];
}

/** Products of a site by upsert key, looked up once for a batch (absent keys are not in it). */
type KnownProducts = Map<string, Product>;

type Written = { i: number; outcome: WriteOutcome };

/** What a batch wrote: each item's result, the written products (by item), and children adopted by new parents. */
export interface BatchWrite {
  results: BulkItem[];
  written: Written[];
  /** Children adopted by a new parent of the batch that are not items of it, in their new state. */
  adoptedOutside: Product[];
}

/** What each item of a batch will do, decided without writing. */
interface BatchPlan {
  /** The refused items' results (by item index; the others are filled in as they are written). */
  results: BulkItem[];
  unchanged: { i: number; doc: Product }[];
  planned: { i: number; plan: WritePlan }[];
  /** Items repeating an external id of this batch: written one by one afterwards. */
  repeated: number[];
  /**
   * Products this batch creates, by external id: the id each is planned with. Children of the
   * batch naming one as parent are planned pointing at that id (no adoption write afterwards).
   */
  newParents: Map<string, string>;
}

/** The external ids a batch names (its products and their parents), for one look-up. */
export function keysNamedBy(items: DecodedProduct[]): string[] {
  const keys = new Set<string>();
  for (const item of items) {
    const v = item.value as { external_id?: unknown; parent_external_id?: unknown } | undefined;
    for (const k of [v?.external_id, v?.parent_external_id]) if (typeof k === 'string') keys.add(k);
  }
  return [...keys];
}

/** Validates each item and plans its write against the products known before the batch. */
export function planBatch(items: DecodedProduct[], known: KnownProducts, source: string, now: Date): BatchPlan {
  const batch: BatchPlan = { results: [], unchanged: [], planned: [], repeated: [], newParents: new Map() };
  const seen = new Set<string>();
  for (const [i, item] of items.entries()) {
    const issues = item.issues?.length ? item.issues : productIssues(item.value, [i]);
    if (issues.length) {
      batch.results[i] = { index: i, status: 'error', errors: issues };
      continue;
    }
    const fields = fieldsOf(item.value as ProductInput, source);
    const key = fields.external_id;
    if (key != null && seen.has(key)) {
      batch.repeated.push(i);
      continue;
    }
    if (key != null) seen.add(key);
    const lookUp = (k: string | null) => (k ? (known.get(k) ?? null) : null);
    const plan = planWrite(fields, lookUp(key), lookUp(fields.parent_external_id), now);
    if (plan.kind === 'unchanged') batch.unchanged.push({ i, doc: plan.existing });
    else batch.planned.push({ i, plan });
  }
  // A parent created by this batch (before or after its children in it) is known to them by the
  // id it is planned with. Should its write end up under another id (a concurrent insert of its
  // key won), the adoption after the writes corrects the children (see adoptIntoBatch).
  for (const { plan } of batch.planned)
    if (plan.externalId !== null && !known.has(plan.externalId)) batch.newParents.set(plan.externalId, plan.newId);
  for (const { plan } of batch.planned) {
    const parentKey = plan.set.parent_external_id;
    const parentId = parentKey !== null && parentKey !== plan.externalId ? batch.newParents.get(parentKey) : undefined;
    if (parentId !== undefined && plan.set.parent_product_id === null)
      plan.set = { ...plan.set, parent_product_id: parentId };
  }
  return batch;
}

/**
 * The writes of a bulk: one look-up of the keys it names, one unordered bulkWrite of the distinct
 * keys, the children new parents adopt, then repeated keys one by one.
 */
export async function writeBatch(
  deps: CatalogDeps,
  tenantId: string,
  site: SiteView,
  items: DecodedProduct[],
  source: string,
): Promise<BatchWrite> {
  const now = new Date();
  const known: KnownProducts = new Map(
    (await deps.products.findByKeys(tenantId, site.id, keysNamedBy(items))).map((d) => [d.upsert_key, d]),
  );
  const batch = planBatch(items, known, source, now);
  const { results } = batch;
  const written: Written[] = batch.unchanged.map(({ i, doc }) => ({
    i,
    outcome: { doc, status: 'unchanged', reuseVectors: true, adopted: [] },
  }));
  const retry = await writePlanned(deps, tenantId, site, batch.planned, now, written);
  await deps.products.touch(
    tenantId,
    batch.unchanged.map((u) => u.doc.id),
    now,
  );
  const adoptedOutside = await adoptIntoBatch(deps, tenantId, site, written, now, batch.newParents);
  for (const i of [...batch.repeated, ...retry].sort((a, b) => a - b)) {
    written.push({ i, outcome: await writeProduct(deps, tenantId, site, items[i]?.value as ProductInput, source) });
  }
  for (const { i, outcome } of written) results[i] = { index: i, status: outcome.status, id: outcome.doc.id };
  return { results, written, adoptedOutside };
}

/**
 * The planned writes in one round trip; appends what was written and returns the items to
 * retry on their own (a concurrent insert of the same key: the retry is then an update).
 */
async function writePlanned(
  deps: CatalogDeps,
  tenantId: string,
  site: SiteView,
  planned: BatchPlan['planned'],
  now: Date,
  written: Written[],
): Promise<number[]> {
  const done = await deps.products.upsertMany(
    tenantId,
    site.id,
    planned.map((p) => p.plan),
    now,
  );
  const retry: number[] = [];
  planned.forEach(({ i, plan }, k) => {
    const r = done[k];
    if (r)
      written.push({
        i,
        outcome: {
          doc: r.doc,
          status: r.created ? 'created' : 'updated',
          reuseVectors: plan.reuseVectors,
          adopted: [],
        },
      });
    else retry.push(i);
  });
  return retry;
}

/**
 * Children written before their new parent (in earlier writes) now point at it: the batch's own
 * outcomes take their new state; returns the adopted children outside the batch. Children of the
 * batch were planned pointing at their new parent's planned id already; a parent of `newParents`
 * whose write ended up under another id (a concurrent insert of its key won; it is then written
 * again afterwards, as an update) has its batch children pointed at the id it now has.
 */
async function adoptIntoBatch(
  deps: CatalogDeps,
  tenantId: string,
  site: SiteView,
  written: Written[],
  now: Date,
  newParents: Map<string, string>,
): Promise<Product[]> {
  const createdParents = new Map(
    written
      .filter((w) => w.outcome.status === 'created' && w.outcome.doc.external_id)
      .map((w) => [w.outcome.doc.external_id as string, w.outcome.doc.id]),
  );
  const missed = [...newParents.keys()].filter((key) => createdParents.get(key) !== newParents.get(key));
  if (missed.length) {
    for (const d of await deps.products.findByKeys(tenantId, site.id, missed))
      if (!createdParents.has(d.upsert_key)) createdParents.set(d.upsert_key, d.id);
  }
  const fresh = new Map((await adoptChildren(deps, tenantId, site.id, createdParents, now)).map((d) => [d.id, d]));
  for (const w of written) {
    const doc = fresh.get(w.outcome.doc.id);
    if (doc) {
      w.outcome = { ...w.outcome, doc };
      fresh.delete(doc.id);
    }
  }
  return [...fresh.values()];
}
