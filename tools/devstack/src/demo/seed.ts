/**
 * Fills a tenant with the demo data through the gateway's public REST API (the product's own
 * validation), idempotently: categories by name under their parent, the site by slug, entries
 * and personal notes by source_reference (`demo:<key>`), products by external_id through the
 * bulk path. What exists is left alone, so a second run creates nothing. Products are sent once
 * per data version: the site's `config.demo_products` records the version written, so later runs
 * neither rewrite nor revert a product someone has edited.
 */
import type { Log } from '../log';
import { demoApi, type DemoApi } from './client';
import { DEMO_CATEGORIES, DEMO_ENTRIES, DEMO_EXAMPLE_PRODUCT, DEMO_NOTES, DEMO_SITE } from './data';
import { DEMO_PRODUCTS_VERSION, demoProducts } from './products';
import type { DemoEntry } from './types';

const API = '/api/knowledge';
/** The bulk route takes up to 1,000; smaller calls let the catalog embed most of them inline. */
const BULK_CHUNK = 50;
const SITE_CHUNK = 4;

export interface SeedOptions {
  /** The gateway, e.g. http://127.0.0.1:8080. */
  gatewayUrl: string;
  /** An Admin token of the tenant (skills need Admin or Supervisor); the personal notes become its user's. */
  token: string;
  /** The tenant, addressed as `<tenant>.localhost`. */
  tenant: string;
  log?: Log;
  /** How long to wait until what was written is searchable (default 180 s; 0: do not wait). */
  waitForIndexMs?: number;
}

export interface SeedCounts {
  categories: number;
  entries: number;
  notes: number;
  sites: number;
  products: number;
}

export interface SeedResult {
  /** Demo items this run wrote (products: those sent, once per data version). */
  created: SeedCounts;
  /** Demo items found in place and left alone (products: not counted, they are not listed). */
  existing: SeedCounts;
  /** The bulk summaries of this run (empty when the products of this data version were already written). */
  productStatuses: Record<string, number>;
  site: { id: string; slug: string };
  /** The banner's similar-products anchor. */
  exampleProduct: { id: string; external_id: string; title: string };
  /** False when indexing had not caught up within waitForIndexMs. */
  indexed: boolean;
  ms: number;
}

interface Category {
  id: string;
  name: string;
  parent_id: string | null;
}
interface Entry {
  id: string;
  source_reference: string | null;
  embedding_model: string | null;
}
interface Site {
  id: string;
  slug: string;
  config: Record<string, unknown>;
}
interface BulkResult {
  results: { index: number; status: string; id: string | null; embeddings: string | null; errors?: unknown[] }[];
  summary: Record<string, number>;
}

export const demoReference = (key: string) => `demo:${key}`;

export async function seedDemoData(options: SeedOptions): Promise<SeedResult> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  const api = demoApi(options.gatewayUrl, options.token, options.tenant);
  const created: SeedCounts = { categories: 0, entries: 0, notes: 0, sites: 0, products: 0 };
  const existing: SeedCounts = { categories: 0, entries: 0, notes: 0, sites: 0, products: 0 };
  try {
    const categories = await seedCategories(api, created, existing);
    const site = await seedSite(api, created, existing);
    const entries = await listEntries(api);
    const newEntries = await seedEntries(api, categories, entries, site, created, existing);
    const newNotes = await seedNotes(api, categories, entries, created, existing);
    if (newEntries.length + newNotes.length > 0)
      log(`demo data: ${newEntries.length} entries and ${newNotes.length} notes written (${since(started)})`);
    const products = await seedProducts(api, site, log);
    if (products.ids.size > 0) log(`demo data: ${products.ids.size} products written (${since(started)})`);
    // Products are sent once per data version, so every product sent is one this run wrote (a
    // bulk call retried after a timeout answers "unchanged" for what its first try stored).
    created.products = products.ids.size;
    const exampleProduct = await findExampleProduct(api, site, products.ids);

    const waitMs = options.waitForIndexMs ?? 180_000;
    let indexed = true;
    if (waitMs > 0 && (newEntries.length + newNotes.length > 0 || products.pending.length > 0)) {
      log(`demo data: waiting until it is searchable (${products.pending.length} products still embedding)…`);
      const until = Date.now() + waitMs;
      indexed = (await entriesIndexed(api, until)) && (await productsIndexed(api, products.pending, until));
    }
    return {
      created,
      existing,
      productStatuses: products.statuses,
      site: { id: site.id, slug: site.slug },
      exampleProduct,
      indexed,
      ms: Date.now() - started,
    };
  } finally {
    api.close();
  }
}

async function seedCategories(api: DemoApi, created: SeedCounts, existing: SeedCounts): Promise<Map<string, string>> {
  const all = await api.ok<Category[]>('GET', `${API}/categories`, undefined, 200);
  const ids = new Map<string, string>();
  for (const c of DEMO_CATEGORIES) {
    const parentId = c.parent ? (ids.get(c.parent) as string) : null;
    const found = all.find((a) => a.name === c.name && (a.parent_id ?? null) === parentId);
    if (found) {
      ids.set(c.key, found.id);
      existing.categories++;
      continue;
    }
    const made = await api.ok<Category>(
      'POST',
      `${API}/categories`,
      { name: c.name, description: c.description, parent_id: parentId, sort_order: c.sort_order ?? 0 },
      201,
    );
    ids.set(c.key, made.id);
    created.categories++;
  }
  return ids;
}

async function seedSite(api: DemoApi, created: SeedCounts, existing: SeedCounts): Promise<Site> {
  const sites = await api.ok<Site[]>('GET', `${API}/sites`, undefined, 200);
  const found = sites.find((s) => s.slug === DEMO_SITE.slug);
  if (found) {
    existing.sites++;
    return found;
  }
  const made = await api.call('POST', `${API}/sites`, DEMO_SITE);
  if (made.status === 409) {
    // Made by a concurrent run between the list and the create: use it.
    existing.sites++;
    return (await api.ok<Site[]>('GET', `${API}/sites`, undefined, 200)).find((s) => s.slug === DEMO_SITE.slug) as Site;
  }
  if (made.status !== 201) throw new Error(`demo data: POST ${API}/sites answered ${made.status}: ${made.text}`);
  created.sites++;
  return made.json as Site;
}

/** Every entry the token sees (its user's personal notes included), every page. */
async function listEntries(api: DemoApi): Promise<Entry[]> {
  const out: Entry[] = [];
  let path: string | undefined = `${API}/knowledge-entries?limit=500&include_expired=true`;
  while (path) {
    const res = await api.call('GET', path);
    if (res.status !== 200) throw new Error(`demo data: GET ${path} answered ${res.status}: ${res.text}`);
    out.push(...(res.json as Entry[]));
    const link = String(res.headers.link ?? '');
    const next = /<([^>]+)>;\s*rel="next"/.exec(link)?.[1];
    path = next ? new URL(next, 'http://x').pathname + new URL(next, 'http://x').search : undefined;
  }
  return out;
}

async function seedEntries(
  api: DemoApi,
  categories: Map<string, string>,
  present: Entry[],
  site: Site,
  created: SeedCounts,
  existing: SeedCounts,
): Promise<string[]> {
  const byReference = new Map(present.filter((e) => e.source_reference).map((e) => [e.source_reference, e.id]));
  const ids = new Map<string, string>();
  const made: string[] = [];
  const create = async (e: DemoEntry) => {
    const found = byReference.get(demoReference(e.key));
    if (found) {
      ids.set(e.key, found);
      existing.entries++;
      return;
    }
    const translationOf = e.translation_of ? ids.get(e.translation_of) : undefined;
    if (e.translation_of && !translationOf)
      throw new Error(`demo data: ${e.key} translates ${e.translation_of}, unknown`);
    const body = {
      title: e.title,
      content: e.content,
      category_id: categories.get(e.category),
      visibility: e.visibility,
      type: e.type,
      language: e.language,
      source: 'import',
      source_reference: demoReference(e.key),
      ...(e.summary ? { summary: e.summary } : {}),
      ...(e.tags ? { tags: e.tags } : {}),
      ...(e.metadata ? { metadata: e.metadata } : {}),
      ...(e.search_keywords ? { search_keywords: e.search_keywords } : {}),
      ...(translationOf ? { translation_of: translationOf } : {}),
    };
    const entry = await withRetry(() => api.ok<Entry>('POST', `${API}/knowledge-entries`, body, 201));
    ids.set(e.key, entry.id);
    made.push(entry.id);
    created.entries++;
  };
  // Sources before their translations; skills one at a time (each rewrites the skill index).
  const sources = DEMO_ENTRIES.filter((e) => !e.translation_of);
  await pool(
    sources.filter((e) => e.type !== 'skill'),
    3,
    create,
  );
  for (const e of sources.filter((s) => s.type === 'skill')) await create(e);
  const translations = DEMO_ENTRIES.filter((e) => e.translation_of);
  await pool(
    translations.filter((e) => e.type !== 'skill'),
    3,
    create,
  );
  for (const e of translations.filter((s) => s.type === 'skill')) await create(e);

  // The shop's customer-facing answers belong to its site (search can filter by site_id).
  const forSite = DEMO_ENTRIES.filter((e) => e.site && made.includes(ids.get(e.key) as string)).map(
    (e) => ids.get(e.key) as string,
  );
  // A few at a time: each call indexes what it assigned before it answers, within the gateway's
  // deadline. The assignment is idempotent, so a call that timed out is simply made again.
  for (let k = 0; k < forSite.length; k += SITE_CHUNK)
    await withRetry(
      () => api.ok('PUT', `${API}/sites/${site.id}/knowledge`, { entry_ids: forSite.slice(k, k + SITE_CHUNK) }, 200),
      /answered (503|504)/,
    );
  return made;
}

async function seedNotes(
  api: DemoApi,
  categories: Map<string, string>,
  present: Entry[],
  created: SeedCounts,
  existing: SeedCounts,
): Promise<string[]> {
  const references = new Set(present.map((e) => e.source_reference));
  const made: string[] = [];
  for (const n of DEMO_NOTES) {
    if (references.has(demoReference(n.key))) {
      existing.notes++;
      continue;
    }
    const note = await api.ok<Entry>(
      'POST',
      `${API}/knowledge-entries/personal`,
      {
        title: n.title,
        content: n.content,
        category_id: categories.get(n.category),
        language: n.language,
        tags: n.tags ?? [],
        source_reference: demoReference(n.key),
      },
      201,
    );
    made.push(note.id);
    created.notes++;
  }
  return made;
}

async function seedProducts(
  api: DemoApi,
  site: Site,
  log: Log,
): Promise<{ statuses: Record<string, number>; ids: Map<string, string>; pending: string[] }> {
  const statuses: Record<string, number> = {};
  const ids = new Map<string, string>();
  const pending: string[] = [];
  if (site.config?.demo_products === DEMO_PRODUCTS_VERSION) return { statuses, ids, pending };
  const products = demoProducts();
  log(`demo data: writing ${products.length} products (the first time, their embeddings take a while)…`);
  for (let k = 0; k < products.length; k += BULK_CHUNK) {
    const chunk = products.slice(k, k + BULK_CHUNK);
    const res = await withRetry(
      () =>
        api.ok<BulkResult>(
          'POST',
          `${API}/products/bulk?site_id=${encodeURIComponent(site.id)}`,
          { products: chunk },
          200,
        ),
      /answered (503|504)/,
    );
    for (const r of res.results) {
      if (r.status === 'error' || !r.id)
        throw new Error(`demo data: product ${chunk[r.index]?.external_id} refused: ${JSON.stringify(r.errors)}`);
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      ids.set(chunk[r.index]!.external_id, r.id);
      if (r.embeddings === 'pending') pending.push(r.id);
    }
  }
  // The version written: later starts leave these products alone.
  await api.ok(
    'PUT',
    `${API}/sites/${site.id}`,
    { config: { ...(site.config ?? {}), demo_products: DEMO_PRODUCTS_VERSION } },
    200,
  );
  return { statuses, ids, pending };
}

/** The banner's anchor: known from this run's bulk answer, else found by its exact SKU. */
async function findExampleProduct(
  api: DemoApi,
  site: Site,
  ids: Map<string, string>,
): Promise<{ id: string; external_id: string; title: string }> {
  const { external_id, sku, title } = DEMO_EXAMPLE_PRODUCT;
  const known = ids.get(external_id);
  if (known) return { id: known, external_id, title };
  const res = await api.ok<{ products: { id: string; external_id: string | null; title: string }[] }>(
    'POST',
    `${API}/search/products`,
    { query: sku, site_id: site.id, limit: 5 },
    200,
  );
  const hit = res.products.find((p) => p.external_id === external_id);
  if (!hit) throw new Error(`demo data: the example product ${external_id} is not in the catalog`);
  return { id: hit.id, external_id, title: hit.title };
}

/** Until every entry the token sees has been embedded (embedding_model set), or `until`. */
async function entriesIndexed(api: DemoApi, until: number): Promise<boolean> {
  for (;;) {
    const waiting = (await listEntries(api)).filter((e) => e.embedding_model == null);
    if (waiting.length === 0) return true;
    if (Date.now() > until) return false;
    await sleep(500);
  }
}

/**
 * Until every product in `ids` has vectors in the search index, or `until`. Asked through the
 * public similar search: its answer names the anchors that had vectors (ten per call).
 */
async function productsIndexed(api: DemoApi, ids: string[], until: number): Promise<boolean> {
  let waiting = [...ids];
  while (waiting.length > 0) {
    const still: string[] = [];
    for (let k = 0; k < waiting.length; k += 10) {
      const anchors = waiting.slice(k, k + 10);
      const res = await api.call('POST', `${API}/search/similar`, {
        anchor_product_ids: anchors,
        vector_field: 'description',
        limit: 1,
      });
      const done =
        res.status === 200 ? new Set((res.json as { anchor_product_ids: string[] }).anchor_product_ids) : new Set();
      still.push(...anchors.filter((id) => !done.has(id)));
    }
    waiting = still;
    if (waiting.length === 0) return true;
    if (Date.now() > until) return false;
    await sleep(1000);
  }
  return true;
}

/**
 * Tries again after an unavailable service (503: nothing was done). Idempotent calls (the bulk
 * upsert, the site assignment) also retry a deadline (504: it may have been done).
 */
async function withRetry<T>(fn: () => Promise<T>, retryable = /answered 503/): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= 4 || !retryable.test((err as Error).message)) throw err;
      await sleep(1000 * attempt);
    }
  }
}

async function pool<T>(items: T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(size, items.length) }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

const since = (t: number) => `${((Date.now() - t) / 1000).toFixed(1)} s`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
