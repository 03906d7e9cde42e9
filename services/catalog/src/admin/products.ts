/**
 * The catalog's administration (the admin CLI's `products import`, `index errors|retry --kind
 * products` and `reindex --kind products`), run in-process against MongoDB with the catalog's
 * own domain code. Indexing goes through the similarity service at `similarity.address` when it is
 * given and answers; otherwise the products stay marked for the running catalog's background
 * indexer. No argument parsing and no wording here: the caller words the outcomes.
 */
import * as grpc from '@grpc/grpc-js';
import type mongoose from 'mongoose';
import { indexErrorLine, reindex, type ReindexResult, type ReindexRunStore } from '@kb/indexing';
import { mongoReindexRuns, type ReindexRunDoc } from '@kb/mongo';
import {
  CLIENT_OPTIONS,
  grpcTarget,
  similarityProto,
  systemCaller,
  typedClient,
  type CallerSigner,
  type Logger,
} from '@kb/platform';
import { productsRepo, type ProductsRepo } from '../data-access/products-repo';
import { sitesRepo, type SitesRepo } from '../data-access/sites-repo';
import type { Product, SiteView } from '../domain/types';
import { bulkUpsert, indexNow, type CatalogDeps } from '../domain/products';
import { productFromJsonText } from '../domain/product-input';

/** How many products one import step writes, and one reindex page holds. */
const BATCH = 100;
const silentLogger = {
  warn: () => undefined,
  info: () => undefined,
  error: () => undefined,
  debug: () => undefined,
} as unknown as Logger;

export interface CatalogRepos {
  sites: SitesRepo;
  products: ProductsRepo;
}

/** The similarity service for one operation: used by `run`, closed after it. */
async function withDeps<T>(
  repos: CatalogRepos,
  similarity: { address: string; sign: CallerSigner } | undefined,
  deadlineMs: number,
  run: (deps: CatalogDeps) => Promise<T>,
): Promise<T> {
  const client = similarity
    ? new (similarityProto().kb.similarity.v1.SimilarityService)(
        grpcTarget(similarity.address),
        grpc.credentials.createInsecure(),
        CLIENT_OPTIONS,
      )
    : undefined;
  try {
    return await run({
      logger: silentLogger,
      ...repos,
      ...(client && similarity ? { similarity: typedClient('similarity', client, deadlineMs, similarity.sign) } : {}),
      indexOnWriteMs: deadlineMs,
    });
  } finally {
    client?.close();
  }
}

/** The site a product import goes to, by slug or id, or null when the tenant has none such. */
export function findSite(repos: CatalogRepos, tenantId: string, siteIdOrSlug: string): Promise<SiteView | null> {
  return repos.sites.find(tenantId, siteIdOrSlug);
}

export interface ImportProductsInput {
  tenantId: string;
  site: SiteView;
  /** JSON lines: one product per non-blank line. */
  text: string;
  /** host:port of the similarity service and what signs the calls to it; absent: indexing is left to the running catalog. */
  similarity?: { address: string; sign: CallerSigner };
  /** The bound on each indexing call (default 30 s). */
  deadlineMs?: number;
  /** Before the first product: how many non-blank lines there are. */
  onStart?(lines: number): void;
  /** As products are written: how many lines are done. */
  onProgress?(done: number): void;
}

export interface ImportProductsResult {
  /** Non-blank lines read. */
  lines: number;
  counts: { created: number; updated: number; unchanged: number; error: number } & {
    recomputed: number;
    skipped: number;
    pending: number;
  };
  /** Each refused line's problems; `path` is empty when the whole line is at fault (e.g. not JSON). */
  problems: { line: number; path: string; msg: string }[];
}

/** Upserts the products of a JSON-lines text into a site, by external id, in batches; bad lines are reported, the rest go on. */
export async function importProducts(repos: CatalogRepos, input: ImportProductsInput): Promise<ImportProductsResult> {
  // Line numbers count every line of the text.
  const lines = input.text
    .split(/\r?\n/)
    .map((t, i) => ({ line: i + 1, text: t }))
    .filter((l) => l.text.trim() !== '');
  input.onStart?.(lines.length);
  const counts = { created: 0, updated: 0, unchanged: 0, error: 0, recomputed: 0, skipped: 0, pending: 0 };
  const problems: ImportProductsResult['problems'] = [];
  await withDeps(repos, input.similarity, input.deadlineMs ?? 30_000, async (deps) => {
    for (let start = 0; start < lines.length; start += BATCH) {
      const chunk = lines.slice(start, start + BATCH);
      const items = chunk.map((l) => productFromJsonText(l.text, []));
      const results = await bulkUpsert(deps, input.tenantId, input.site, items, {
        source: 'import',
        onItem: (n) => input.onProgress?.(start + n),
      });
      for (const r of results) {
        counts[r.status]++;
        if (r.embeddings) counts[r.embeddings]++;
        if (r.status === 'error') {
          const line = (chunk[r.index] as { line: number }).line;
          for (const e of r.errors ?? [])
            problems.push({ line, path: e.loc.filter((x) => typeof x === 'string').join('.'), msg: e.msg });
        }
      }
    }
  });
  return { lines: lines.length, counts, problems };
}

/** A document the search index refused, as `indexErrorLine` prints it. */
export type ProductIndexErrorRow = Parameters<typeof indexErrorLine>[1];

/** The products the search index refused (of one tenant, or all), with the reason, attempts and refused version. */
export async function productIndexErrors(
  repos: CatalogRepos,
  input: { tenantId?: string },
): Promise<ProductIndexErrorRow[]> {
  const refused = await repos.products.indexErrors(input.tenantId);
  return refused.flatMap((p) => (p.index_error ? [{ ...p, queued: p.needs_index, index_error: p.index_error }] : []));
}

/** Queues the refused products (of one tenant, or all; only `ids` when given) for the running catalog's indexer; returns how many. */
export function retryProductIndexErrors(
  repos: CatalogRepos,
  input: { tenantId?: string; ids?: string[] },
): Promise<number> {
  return repos.products.retryIndexErrors(input.tenantId, input.ids ?? []);
}

export interface ReindexProductsInput {
  /** host:port of the similarity service and what signs the calls to it (the system credential: a reindex spans tenants). */
  similarity: { address: string; sign: CallerSigner };
  /** The bound on the similarity service's calls other than indexing a page (default 30 s). */
  deadlineMs?: number;
  /** The new index has been created; `total`: how many products there are to write. */
  /** Continue the unfinished run from its last finished page (a new run when there is none). */
  resume?: boolean;
  /** Products per page (default 100): a resumed run continues after the last page finished. */
  pageSize?: number;
  /** How a page that failed is written again (default: 3 more times, from 500 ms, doubling). */
  retry?: { attempts: number; delayMs: number };
  /** The new index has been created (or the run resumed); `total`: how many products there are to write. */
  onBegun?(target: { index: string; alias: string; total: number; resumed?: { after: string; done: number } }): void;
  onPage?(done: number): void;
  onRetry?(attempt: number, delayMs: number, error: string): void;
}

/**
 * Rebuilds the products index from MongoDB (the rules: @kb/indexing reindex). A refused product
 * is recorded (index errors) and does not hold up the swap: it would be refused by any index of
 * this mapping. Anything else not indexed leaves the alias on the old index (no `finished`).
 */
export function reindexProducts(
  repos: CatalogRepos,
  input: ReindexProductsInput,
  runs?: ReindexRunStore,
): Promise<ReindexResult> {
  return withDeps(repos, input.similarity, input.deadlineMs ?? 30_000, (deps) =>
    reindex({
      kind: 'products',
      similarity: deps.similarity!,
      caller: systemCaller('catalog', ''), // an empty tenant: the similarity service's cross-tenant system caller
      pageSize: input.pageSize ?? BATCH,
      page: (after, limit) => repos.products.allAfter(after, limit),
      indexPage: async (batch: Product[], targetIndex) => {
        const ok = await indexNow(
          deps,
          batch.map((d) => ({ ...d, reuse_vectors: false })),
          { targetIndex, deadlineMs: 60_000 },
        );
        return { indexed: ok.indexed.size, refused: ok.refused.size };
      },
      requeueWrittenSince: (since) => repos.products.markChangedSince(since),
      onBegun: async (target) => input.onBegun?.({ ...target, total: await repos.products.countAll() }),
      ...(runs ? { runs } : {}),
      ...(input.resume ? { resume: true } : {}),
      ...(input.retry ? { retry: input.retry } : {}),
      ...(input.onPage ? { onPage: input.onPage } : {}),
      ...(input.onRetry ? { onRetry: input.onRetry } : {}),
    }),
  );
}

export type CatalogAdmin = {
  findSite(tenantId: string, siteIdOrSlug: string): Promise<SiteView | null>;
  importProducts(input: ImportProductsInput): Promise<ImportProductsResult>;
  productIndexErrors(input: { tenantId?: string }): Promise<ProductIndexErrorRow[]>;
  retryProductIndexErrors(input: { tenantId?: string; ids?: string[] }): Promise<number>;
  reindexProducts(input: ReindexProductsInput): Promise<ReindexResult>;
};

/** Where `reindex --kind products` keeps its progress (@kb/mongo mongoReindexRuns). */
export const REINDEX_RUNS = 'product_reindex_runs';

/** The operations bound to a MongoDB connection, once the catalog collections' indexes exist. */
export async function catalogAdmin(connection: mongoose.Connection): Promise<CatalogAdmin> {
  const repos = { sites: sitesRepo(connection), products: productsRepo(connection) };
  await repos.sites.ensureIndexes();
  await repos.products.ensureIndexes();
  return {
    findSite: (tenantId, site) => findSite(repos, tenantId, site),
    importProducts: (input) => importProducts(repos, input),
    productIndexErrors: (input) => productIndexErrors(repos, input),
    retryProductIndexErrors: (input) => retryProductIndexErrors(repos, input),
    reindexProducts: (input) =>
      reindexProducts(repos, input, mongoReindexRuns(connection.collection<ReindexRunDoc>(REINDEX_RUNS))),
  };
}
