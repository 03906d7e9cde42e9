import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { AppError, type Logger, type TypedClient, type ValidationIssue, type similarityV1 } from '@kb/common';
import type { ProductDoc, ProductFields, ProductsRepo } from '../data-access/products-repo';
import type { SiteView, SitesRepo } from '../data-access/sites-repo';
import { DECIMAL_FIELDS, toDecimal128 } from './exact-json';
import { productIssues, type ProductInput } from './product-input';
import { indexDocument } from './product-view';

export type SimilarityClient = TypedClient<similarityV1.SimilarityServiceClient>;
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
}

const INLINE_PAUSE_MS = 10_000;
const inlinePaused = (deps: CatalogDeps) => Date.now() < (deps.inlineIndexing?.pausedUntil ?? 0);
function indexingFailed(deps: CatalogDeps, inline: boolean): void {
  if (inline && deps.inlineIndexing) deps.inlineIndexing.pausedUntil = Date.now() + INLINE_PAUSE_MS;
}
/** The background indexer got through: writes may wait for indexing again. */
export function indexingRecovered(deps: CatalogDeps): void {
  if (deps.inlineIndexing) deps.inlineIndexing.pausedUntil = 0;
}

/** Caller for calls the catalog makes on its own behalf (indexing), inside one tenant. */
export function systemCaller(tenantId: string) {
  return { tenant_id: tenantId, user_id: '', role: 'Admin', scopes: ['knowledge:read', 'knowledge:write', 'knowledge:admin'], workspace_ids: [], audit_source: 'system', client_id: '', request_id: '', token_id: 'system:catalog' };
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
}

/**
 * Writes one validated product: unchanged content only records the sync; anything else is one
 * atomic upsert (a new version, to be indexed). Children waiting for this external id adopt it.
 */
export async function writeProduct(deps: CatalogDeps, tenantId: string, site: SiteView, input: ProductInput, source = 'api'): Promise<WriteOutcome> {
  const now = new Date();
  const fields = fieldsOf(input, source);
  const existing = fields.external_id ? await deps.products.findByKey(tenantId, site._id, fields.external_id) : null;
  if (existing && sameFields(existing, fields)) {
    await deps.products.touch(tenantId, existing._id, now);
    return { doc: { ...existing, last_synced_at: now }, status: 'unchanged', reuseVectors: true };
  }
  const parent = fields.parent_external_id ? await deps.products.findByKey(tenantId, site._id, fields.parent_external_id) : null;
  const reuseVectors = Boolean(existing && existing.sync_hash !== null && existing.sync_hash === fields.sync_hash);
  const newId = randomUUID();
  const { doc, created } = await deps.products.upsert(
    tenantId,
    site._id,
    fields.external_id ?? newId,
    newId,
    {
      ...fields,
      parent_product_id: parent && parent._id !== (existing?._id ?? newId) ? parent._id : null,
      translation_group_id: existing?.translation_group_id ?? null,
      has_similarity_anchor: Boolean(fields.similarity_text && fields.similarity_text.trim()),
      needs_index: true,
      reuse_vectors: reuseVectors,
      last_synced_at: now,
      updated_at: now,
    },
    now,
  );
  if (fields.external_id) await deps.products.adoptChildren(tenantId, site._id, fields.external_id, doc._id, now);
  return { doc, status: created ? 'created' : 'updated', reuseVectors };
}

/**
 * Indexes product versions now (bounded); marks what the similarity service confirmed. Never
 * throws: what is not confirmed stays `needs_index` for the background indexer.
 */
export async function indexNow(
  deps: CatalogDeps,
  docs: ProductDoc[],
  options: { deadlineMs?: number; targetIndex?: string; inline?: boolean } = {},
): Promise<Set<string>> {
  const done = new Set<string>();
  if (!deps.similarity || docs.length === 0) return done;
  if (options.inline && inlinePaused(deps)) return done;
  const byTenant = new Map<string, ProductDoc[]>();
  for (const d of docs) byTenant.set(d.tenant_id, [...(byTenant.get(d.tenant_id) ?? []), d]);
  for (const [tenantId, group] of byTenant) {
    try {
      const res = await deps.similarity.call(
        'IndexProducts',
        {
          caller: systemCaller(tenantId),
          products: group.map((d) => indexDocument(d, Boolean(d.reuse_vectors))),
          ...(options.targetIndex ? { target_index: options.targetIndex } : {}),
        },
        { deadlineMs: options.deadlineMs ?? deps.indexOnWriteMs },
      );
      for (const r of res.results) {
        if (r.status !== 'indexed' && r.status !== 'stale') continue;
        const d = group.find((g) => g._id === r.id);
        if (!d) continue;
        if (!options.targetIndex) await deps.products.markIndexed(tenantId, d._id, d.version);
        done.add(d._id);
      }
    } catch (err) {
      indexingFailed(deps, Boolean(options.inline));
      deps.logger.warn({ err: (err as Error).message, tenant_id: tenantId, count: group.length }, 'indexing deferred to the background indexer');
      if (options.inline) break;
    }
  }
  return done;
}

function embeddingsStatus(outcome: WriteOutcome, indexed: boolean): EmbeddingsStatus {
  if (outcome.status === 'unchanged' || outcome.reuseVectors) return 'skipped';
  return indexed ? 'recomputed' : 'pending';
}

export async function upsertProduct(deps: CatalogDeps, tenantId: string, siteIdOrSlug: string, input: ProductInput) {
  const site = await requireSite(deps, tenantId, siteIdOrSlug);
  const outcome = await writeProduct(deps, tenantId, site, input);
  const indexed = outcome.status === 'unchanged' ? false : (await indexNow(deps, [outcome.doc], { inline: true })).has(outcome.doc._id);
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

/**
 * Many products for one site: each item validated and written on its own (a bad one gets its
 * issues, the rest go on), then the written ones indexed in batches within the write bound.
 */
export async function bulkUpsert(
  deps: CatalogDeps,
  tenantId: string,
  site: SiteView,
  items: { value?: unknown; issues?: ValidationIssue[] }[],
  options: { source?: string; onItem?: (done: number) => void } = {},
): Promise<BulkItem[]> {
  const results: BulkItem[] = [];
  const written: { i: number; outcome: WriteOutcome }[] = [];
  for (const [i, item] of items.entries()) {
    const issues = item.issues?.length ? item.issues : productIssues(item.value, [i]);
    if (issues.length) {
      results[i] = { index: i, status: 'error', errors: issues };
    } else {
      try {
        const outcome = await writeProduct(deps, tenantId, site, item.value as ProductInput, options.source);
        written.push({ i, outcome });
        results[i] = { index: i, status: outcome.status, id: outcome.doc._id };
      } catch (err) {
        if (err instanceof AppError && err.kind !== 'invalid') throw err;
        results[i] = { index: i, status: 'error', errors: err instanceof AppError && err.issues ? err.issues : [{ loc: [i], msg: 'Could not write this product', type: 'write_error' }] };
        deps.logger.warn({ err, index: i }, 'bulk item failed');
      }
    }
    options.onItem?.(i + 1);
  }
  const toIndex = written.filter((w) => w.outcome.status !== 'unchanged');
  const indexed = new Set<string>();
  const started = Date.now();
  for (let k = 0; k < toIndex.length; k += 100) {
    const left = deps.indexOnWriteMs * 4 - (Date.now() - started);
    if (left < 200) break; // the rest is the background indexer's
    const batch = toIndex.slice(k, k + 100).map((w) => w.outcome.doc);
    for (const id of await indexNow(deps, batch, { deadlineMs: Math.min(left, deps.indexOnWriteMs * 2), inline: true })) indexed.add(id);
  }
  for (const { i, outcome } of written) (results[i] as BulkItem).embeddings = embeddingsStatus(outcome, indexed.has(outcome.doc._id));
  return results;
}

export async function deleteProduct(deps: CatalogDeps, tenantId: string, id: string): Promise<void> {
  const doc = await deps.products.remove(tenantId, id, new Date());
  if (!doc) throw AppError.notFound('Product not found');
  if (deps.similarity && !inlinePaused(deps)) {
    try {
      await deps.similarity.call('DeleteProducts', { caller: systemCaller(tenantId), documents: [{ id, version: String(doc.version + 1) }] }, { deadlineMs: deps.indexOnWriteMs });
      await deps.products.deletionDone(tenantId, id, doc.version + 1);
    } catch (err) {
      indexingFailed(deps, true);
      deps.logger.warn({ err: (err as Error).message, product_id: id }, 'index delete deferred to the background indexer');
    }
  }
}
