import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { AppError, indexErrorMessage, isRefusal, systemCaller, type Logger, type OutageLog, type SimilarityClient, type ValidationIssue, type similarityV1 } from '@kb/common';
import type { ProductDoc, ProductFields, ProductsRepo } from '../data-access/products-repo';
import type { SiteView, SitesRepo } from '../data-access/sites-repo';
import { DECIMAL_FIELDS, toDecimal128 } from './exact-json';
import { productIssues, type ProductInput } from './product-input';
import { indexDocument } from './product-view';
import { siteGuard } from './site-guard';

export type UpsertStatus = 'created' | 'updated' | 'unchanged';
export type EmbeddingsStatus = 'recomputed' | 'skipped' | 'pending';

export interface CatalogDeps {
  logger: Logger;
  sites: SitesRepo;
  products: ProductsRepo;
  /** Absent when the similarity service is not known (the background indexer catches up). */
  similarity?: SimilarityClient;
  /** The bound on indexing before a write answers. */
  indexOnWriteMs: number;
  /**
   * After an indexing failure, writes stop waiting for indexing for a while (the background
   * indexer owns it then, and its first success lifts the pause): during an outage every write
   * answers at once instead of each spending its bound on a dependency known to be down.
   */
  inlineIndexing?: { pausedUntil: number };
  /** Logs an indexing outage when it starts and ends, not once per retry (else a warning per failure). */
  indexingOutage?: OutageLog;
}

const INLINE_PAUSE_MS = 10_000;
/** Bulk writes index at most this many changed products before answering. */
export const INLINE_BULK_MAX = 100;
const inlinePaused = (deps: CatalogDeps) => Date.now() < (deps.inlineIndexing?.pausedUntil ?? 0);
function indexingFailed(deps: CatalogDeps, inline: boolean): void {
  if (inline && deps.inlineIndexing) deps.inlineIndexing.pausedUntil = Date.now() + INLINE_PAUSE_MS;
}
/** The background indexer got through: writes may wait for indexing again. */
export function indexingRecovered(deps: CatalogDeps): void {
  if (deps.inlineIndexing) deps.inlineIndexing.pausedUntil = 0;
}

export async function requireSite(deps: CatalogDeps, tenantId: string, idOrSlug: string): Promise<SiteView> {
  const site = await deps.sites.find(tenantId, idOrSlug);
  if (!site) throw AppError.notFound('Site not found');
  return site;
}

/** The stored form of a product input: defaults for what was omitted, exact decimals. */
function fieldsOf(input: ProductInput, source: string): ProductFields {
  const decimal = (v: string | null | undefined) => (v == null ? null : (toDecimal128(v) ?? null));
  return {
    external_id: input.external_id ?? null,
    title: input.title,
    description: input.description ?? null,
    short_description: input.short_description ?? null,
    sku: input.sku ?? null,
    gtin: input.gtin ?? null,
    brand: input.brand ?? null,
    category: input.category ?? null,
    attributes: input.attributes ?? {},
    properties: input.properties ?? {},
    price_current: decimal(input.price_current),
    price_msrp: decimal(input.price_msrp),
    price_special: decimal(input.price_special),
    price_on_request: input.price_on_request ?? false,
    currency: input.currency ?? 'EUR',
    image_url: input.image_url ?? null,
    product_url: input.product_url ?? null,
    additional_images: input.additional_images ?? [],
    availability: input.availability ?? null,
    rating_average: decimal(input.rating_average),
    rating_count: input.rating_count ?? 0,
    language: input.language,
    parent_external_id: input.parent_external_id ?? null,
    is_variant: input.is_variant ?? false,
    is_parent: input.is_parent ?? false,
    similarity_text: input.similarity_text ?? null,
    search_keywords: input.search_keywords ?? [],
    embedding_text_description: input.embedding_text_description ?? null,
    embedding_text_properties: input.embedding_text_properties ?? null,
    embedding_text_attributes: input.embedding_text_attributes ?? null,
    sync_hash: input.sync_hash ?? null,
    source,
  };
}

const comparable = (f: Partial<ProductFields>) => {
  const out: Record<string, unknown> = { ...f };
  for (const k of DECIMAL_FIELDS) out[k] = f[k] == null ? null : String(f[k]);
  return out;
};

function sameFields(doc: ProductDoc, fields: ProductFields): boolean {
  const stored: Partial<ProductFields> = {};
  for (const k of Object.keys(fields) as (keyof ProductFields)[]) (stored as Record<string, unknown>)[k] = doc[k] ?? null;
  // The channel a sync came through (api, import) is not content: the same product is unchanged.
  return isDeepStrictEqual({ ...comparable(stored), source: null }, { ...comparable(fields), source: null });
}

export interface WriteOutcome {
  doc: ProductDoc;
  status: UpsertStatus;
  reuseVectors: boolean;
  /** Children that were waiting for this (new) parent, in their new state: index them too. */
  adopted: ProductDoc[];
}

/** New parents (external id → id) adopt their waiting children; returns those in their new state. */
async function adoptChildren(deps: CatalogDeps, tenantId: string, siteId: string, parents: Map<string, string>, now: Date): Promise<ProductDoc[]> {
  const ids = await deps.products.adoptChildrenOf(tenantId, siteId, parents, now);
  return ids.length ? deps.products.findByIds(tenantId, ids) : [];
}

/** Products of a site by upsert key, looked up once for a batch (absent keys map to null). */
export type KnownProducts = Map<string, ProductDoc | null>;

type UpsertSet = Parameters<ProductsRepo['upsert']>[4];
type Plan =
  | { kind: 'unchanged'; existing: ProductDoc }
  | { kind: 'write'; key: string; newId: string; set: UpsertSet; reuseVectors: boolean; externalId: string | null };

/** What a product write will do, given the stored product with its key and its parent. */
function planWrite(fields: ProductFields, existing: ProductDoc | null, parent: ProductDoc | null, now: Date): Plan {
  if (existing && sameFields(existing, fields)) return { kind: 'unchanged', existing };
  const newId = randomUUID();
  const reuseVectors = Boolean(existing && existing.sync_hash !== null && existing.sync_hash === fields.sync_hash);
  return {
    kind: 'write',
    key: fields.external_id ?? newId,
    newId,
    externalId: fields.external_id,
    reuseVectors,
    set: {
      ...fields,
      parent_product_id: parent && parent._id !== (existing?._id ?? newId) ? parent._id : null,
      translation_group_id: existing?.translation_group_id ?? null,
      has_similarity_anchor: Boolean(fields.similarity_text && fields.similarity_text.trim()),
      needs_index: true,
      reuse_vectors: reuseVectors,
      last_synced_at: now,
      updated_at: now,
    },
  };
}

/**
 * Writes one validated product: unchanged content only records the sync; anything else is one
 * atomic upsert (a new version, to be indexed). A new parent adopts the children waiting for its external id.
 */
export async function writeProduct(deps: CatalogDeps, tenantId: string, site: SiteView, input: ProductInput, source = 'api'): Promise<WriteOutcome> {
  const now = new Date();
  const fields = fieldsOf(input, source);
  const existing = fields.external_id ? await deps.products.findByKey(tenantId, site._id, fields.external_id) : null;
  const parent = fields.parent_external_id && !(existing && sameFields(existing, fields))
    ? await deps.products.findByKey(tenantId, site._id, fields.parent_external_id)
    : null;
  const plan = planWrite(fields, existing, parent, now);
  if (plan.kind === 'unchanged') {
    await deps.products.touch(tenantId, [plan.existing._id], now);
    return { doc: { ...plan.existing, last_synced_at: now }, status: 'unchanged', reuseVectors: true, adopted: [] };
  }
  const { doc, created } = await deps.products.upsert(tenantId, site._id, plan.key, plan.newId, plan.set, now);
  // Only a product that did not exist can have children waiting for it (later children find
  // their parent when they are written).
  const adopted = created && plan.externalId ? await adoptChildren(deps, tenantId, site._id, new Map([[plan.externalId, doc._id]]), now) : [];
  return { doc, status: created ? 'created' : 'updated', reuseVectors: plan.reuseVectors, adopted };
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
  docs: ProductDoc[],
  options: { deadlineMs?: number; targetIndex?: string; inline?: boolean } = {},
): Promise<IndexOutcome> {
  const outcome: IndexOutcome = { indexed: new Set(), refused: new Set() };
  if (!deps.similarity || docs.length === 0) return outcome;
  if (options.inline && inlinePaused(deps)) return outcome;
  const byTenant = new Map<string, ProductDoc[]>();
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

/**
 * One call for one tenant's products. A whole call refused (INVALID_ARGUMENT) is sent again
 * product by product, so only the product at fault is recorded. Throws what is worth retrying.
 */
async function indexGroup(
  deps: CatalogDeps,
  tenantId: string,
  group: ProductDoc[],
  options: { deadlineMs?: number; targetIndex?: string },
  outcome: IndexOutcome,
): Promise<void> {
  let res;
  try {
    res = await (deps.similarity as SimilarityClient).call(
      'IndexProducts',
      {
        caller: systemCaller('catalog', tenantId),
        products: group.map((d) => indexDocument(d, Boolean(d.reuse_vectors))),
        ...(options.targetIndex ? { target_index: options.targetIndex } : {}),
      },
      { deadlineMs: options.deadlineMs ?? deps.indexOnWriteMs },
    );
  } catch (err) {
    if (!isRefusal(err)) throw err;
    if (group.length === 1) return recordRefusal(deps, group[0] as ProductDoc, (err as Error).message, outcome);
    for (const d of group) await indexGroup(deps, tenantId, [d], options, outcome);
    return;
  }
  for (const r of res.results) {
    const d = group.find((g) => g._id === r.id);
    if (!d) continue;
    if (r.status === 'failed') await recordRefusal(deps, d, r.error, outcome);
    if (r.status !== 'indexed' && r.status !== 'stale') continue;
    if (!options.targetIndex) await deps.products.markIndexed(tenantId, d._id, d.version);
    outcome.indexed.add(d._id);
  }
}

/**
 * The search index refused this version as it is: retrying it unchanged cannot help, so it is
 * recorded on the product (and out of the queue) until a new version or `admin index retry`,
 * and logged once, at error level.
 */
async function recordRefusal(deps: CatalogDeps, doc: ProductDoc, reason: string, outcome: IndexOutcome): Promise<void> {
  outcome.refused.add(doc._id);
  const message = indexErrorMessage(reason || 'refused without a reason');
  // False when a newer version was written meanwhile: that one is queued and gets its own try.
  if (!(await deps.products.markRefused(doc.tenant_id, doc._id, doc.version, message, new Date()))) return;
  deps.logger.error(
    { tenant_id: doc.tenant_id, product_id: doc._id, version: doc.version, error: message, index_errors: await deps.products.countIndexErrors() },
    'the search index refused a product; not retried until it changes (npm run admin -- index errors)',
  );
}

function embeddingsStatus(outcome: WriteOutcome, indexed: boolean): EmbeddingsStatus {
  if (outcome.status === 'unchanged' || outcome.reuseVectors) return 'skipped';
  return indexed ? 'recomputed' : 'pending';
}

/**
 * Runs product writes into a site under the site's claim, so a concurrent delete of the site
 * either sees the products (409) or wins first (404): no product is left on a deleted site.
 * Indexing runs after the claim is released; it only reads what was written.
 */
function inSite<T>(deps: CatalogDeps, tenantId: string, site: SiteView, write: () => Promise<T>, createdBy: (result: T) => ProductDoc[]): Promise<T> {
  // The undo (a claim dropped in a stall, the site deleted meanwhile; @kb/common parent-guard.ts).
  // Only a product this write created can be left on the deleted site: one that existed before
  // would have made the delete a 409. It goes as a product delete would (tombstone for the index).
  const undo = async (result: T) => {
    for (const doc of createdBy(result)) await deps.products.remove(tenantId, doc._id, new Date());
  };
  return siteGuard(deps.sites).referring(tenantId, site._id, write, undo);
}

const createdIn = (outcomes: WriteOutcome[]) => outcomes.filter((o) => o.status === 'created').map((o) => o.doc);

/** Time left before the caller's deadline (epoch ms), keeping a margin to answer in. */
const timeLeft = (deadline: number | undefined, marginMs: number) => (deadline ?? Infinity) - Date.now() - marginMs;

export async function upsertProduct(deps: CatalogDeps, tenantId: string, siteIdOrSlug: string, input: ProductInput, deadline?: number) {
  const site = await requireSite(deps, tenantId, siteIdOrSlug);
  const outcome = await inSite(deps, tenantId, site, () => writeProduct(deps, tenantId, site, input), (o) => createdIn([o]));
  const budget = Math.min(deps.indexOnWriteMs, timeLeft(deadline, 300));
  const indexed =
    outcome.status === 'unchanged' || budget < 100
      ? false
      : (await indexNow(deps, [outcome.doc, ...outcome.adopted], { inline: true, deadlineMs: budget })).indexed.has(outcome.doc._id);
  const doc = (await deps.products.findById(tenantId, outcome.doc._id)) ?? outcome.doc;
  return { doc, status: outcome.status, embeddings: embeddingsStatus(outcome, indexed) };
}

export interface BulkItem {
  index: number;
  status: UpsertStatus | 'error';
  id?: string;
  embeddings?: EmbeddingsStatus;
  errors?: ValidationIssue[];
}

/** What a batch wrote: each item's result, the written products (by item), and children adopted by new parents. */
interface BatchWrite {
  results: BulkItem[];
  written: { i: number; outcome: WriteOutcome }[];
  /** Children adopted by a new parent of the batch that are not items of it, in their new state. */
  adoptedOutside: ProductDoc[];
}

/**
 * Many products for one site: each item validated and written on its own (a bad one gets its
 * issues, the rest go on), then the written ones indexed in batches within the write bound.
 */
export async function bulkUpsert(
  deps: CatalogDeps,
  tenantId: string,
  site: SiteView,
  items: { value?: unknown; issues?: ValidationIssue[] }[],
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
  // A large bulk answers without waiting for its embeddings (they are "pending"; the background
  // indexer starts on them at once): embedding hundreds of texts would outlast any deadline.
  const toIndex = [...written.filter((w) => w.outcome.status !== 'unchanged').flatMap((w) => [w.outcome.doc, ...w.outcome.adopted]), ...adoptedOutside];
  const indexed = new Set<string>();
  const started = Date.now();
  for (let k = 0; toIndex.length <= INLINE_BULK_MAX && k < toIndex.length; k += 100) {
    // Within the write bound, and within the caller's deadline: the answer must make it back.
    const left = Math.min(deps.indexOnWriteMs * 4 - (Date.now() - started), timeLeft(options.deadline, 500));
    if (left < 200) break; // the rest is the background indexer's
    const batch = toIndex.slice(k, k + 100);
    for (const id of (await indexNow(deps, batch, { deadlineMs: Math.min(left, deps.indexOnWriteMs * 2), inline: true })).indexed) indexed.add(id);
  }
  for (const { i, outcome } of written) (results[i] as BulkItem).embeddings = embeddingsStatus(outcome, indexed.has(outcome.doc._id));
  return results;
}

/** The writes of a bulk: one unordered bulkWrite of the distinct keys, then repeated keys one by one. */
async function writeBatch(deps: CatalogDeps, tenantId: string, site: SiteView, items: { value?: unknown; issues?: ValidationIssue[] }[], source: string): Promise<BatchWrite> {
  const results: BulkItem[] = [];
  const written: { i: number; outcome: WriteOutcome }[] = [];
  const now = new Date();
  // One look-up for the whole batch: the products and the parents its items name.
  const keys = new Set<string>();
  for (const item of items) {
    const v = item.value as { external_id?: unknown; parent_external_id?: unknown } | undefined;
    for (const k of [v?.external_id, v?.parent_external_id]) if (typeof k === 'string') keys.add(k);
  }
  const known: KnownProducts = new Map();
  for (const doc of await deps.products.findByKeys(tenantId, site._id, [...keys])) known.set(doc.upsert_key, doc);
  const touched: ProductDoc[] = [];
  const planned: { i: number; plan: Extract<Plan, { kind: 'write' }> }[] = [];
  const one: number[] = []; // items repeating a key of this batch: written one by one afterwards
  const seen = new Set<string>();
  for (const [i, item] of items.entries()) {
    const issues = item.issues?.length ? item.issues : productIssues(item.value, [i]);
    if (issues.length) {
      results[i] = { index: i, status: 'error', errors: issues };
      continue;
    }
    const input = item.value as ProductInput;
    if (input.external_id != null && seen.has(input.external_id)) {
      one.push(i);
      continue;
    }
    if (input.external_id != null) seen.add(input.external_id);
    const fields = fieldsOf(input, source);
    const plan = planWrite(fields, fields.external_id ? (known.get(fields.external_id) ?? null) : null, fields.parent_external_id ? (known.get(fields.parent_external_id) ?? null) : null, now);
    if (plan.kind === 'unchanged') {
      touched.push(plan.existing);
      const outcome: WriteOutcome = { doc: plan.existing, status: 'unchanged', reuseVectors: true, adopted: [] };
      written.push({ i, outcome });
      results[i] = { index: i, status: 'unchanged', id: plan.existing._id };
    } else planned.push({ i, plan });
  }
  const done = await deps.products.upsertMany(tenantId, site._id, planned.map((p) => p.plan), now);
  planned.forEach(({ i, plan }, k) => {
    const r = done[k];
    if (!r) {
      one.push(i); // a concurrent insert of the same key: retried on its own (then an update)
      return;
    }
    written.push({ i, outcome: { doc: r.doc, status: r.created ? 'created' : 'updated', reuseVectors: plan.reuseVectors, adopted: [] } });
    results[i] = { index: i, status: r.created ? 'created' : 'updated', id: r.doc._id };
  });
  await deps.products.touch(tenantId, touched.map((d) => d._id), now);
  const createdParents = new Map(
    written.filter((w) => w.outcome.status === 'created' && w.outcome.doc.external_id).map((w) => [w.outcome.doc.external_id as string, w.outcome.doc._id]),
  );
  // Children written before their parent (also earlier in this batch) now point at it: index
  // their new state, not the one written above.
  const fresh = new Map((await adoptChildren(deps, tenantId, site._id, createdParents, now)).map((d) => [d._id, d]));
  for (const w of written) {
    const doc = fresh.get(w.outcome.doc._id);
    if (doc) {
      w.outcome = { ...w.outcome, doc };
      fresh.delete(doc._id);
    }
  }
  for (const i of one.sort((a, b) => a - b)) {
    const outcome = await writeProduct(deps, tenantId, site, items[i]?.value as ProductInput, source);
    written.push({ i, outcome });
    results[i] = { index: i, status: outcome.status, id: outcome.doc._id };
  }
  return { results, written, adoptedOutside: [...fresh.values()] };
}

export async function deleteProduct(deps: CatalogDeps, tenantId: string, id: string): Promise<void> {
  const doc = await deps.products.remove(tenantId, id, new Date());
  if (!doc) throw AppError.notFound('Product not found');
  if (deps.similarity && !inlinePaused(deps)) {
    try {
      await deps.similarity.call('DeleteProducts', { caller: systemCaller('catalog', tenantId), documents: [{ id, version: String(doc.version + 1) }] }, { deadlineMs: deps.indexOnWriteMs });
      await deps.products.deletionDone(tenantId, id, doc.version + 1);
    } catch (err) {
      indexingFailed(deps, true);
      deps.logger.warn({ err: (err as Error).message, product_id: id }, 'index delete deferred to the background indexer');
    }
  }
}
