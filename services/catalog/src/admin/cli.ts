/**
 * The catalog's admin commands, run in-process against MongoDB with the catalog's own domain
 * code (the devstack `npm run admin` wrapper dispatches `products …` and `reindex products`
 * here). Indexing goes through the similarity service when its address is known and it
 * answers; otherwise the products stay marked for the running catalog's background indexer.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import type mongoose from 'mongoose';
import { SingleBar, Presets } from 'cli-progress';
import {
  CLIENT_OPTIONS,
  indexErrorLine,
  reindex,
  similarityProto,
  systemCaller,
  typedClient,
  type Logger,
} from '@kb/common';
import { runAdminProcess } from '@kb/common/mongo';
import { productsRepo } from '../data-access/products-repo';
import { sitesRepo } from '../data-access/sites-repo';
import { bulkUpsert, indexNow, type CatalogDeps } from '../domain/products';
import { productFromJsonText } from '../domain/product-input';
import type { Product } from '../domain/types';

export const CATALOG_USAGE = `Catalog commands:
  admin products import --tenant <tenant-id> --site <slug-or-uuid> <file.jsonl>
  admin reindex products
  admin index errors [--tenant <tenant-id>] [--kind products|entries]   (documents the search index refused)
  admin index retry [--tenant <tenant-id>] [--kind products|entries] [<id> ...]   (queue them for the indexer again)`;

export class CatalogUsageError extends Error {}

export interface CatalogAdminOptions {
  /** host:port of the similarity service; absent: indexing is left to the running catalog. */
  similarityAddr?: string;
  deadlineMs?: number;
  /** Where the progress bar and per-line problems go (default process.stderr). */
  stderr?: NodeJS.WritableStream;
}

const BATCH = 100;
const silentLogger = {
  warn: () => undefined,
  info: () => undefined,
  error: () => undefined,
  debug: () => undefined,
} as unknown as Logger;

/** Runs a catalog admin command; returns the exit code (0 ok, 1 some lines or products failed). */
export async function runCatalogAdmin(
  argv: string[],
  connection: mongoose.Connection,
  out: (line: string) => void,
  options: CatalogAdminOptions = {},
): Promise<number> {
  const stderr = options.stderr ?? process.stderr;
  const sites = sitesRepo(connection);
  const products = productsRepo(connection);
  await sites.ensureIndexes();
  await products.ensureIndexes();
  const client = options.similarityAddr
    ? new (similarityProto().kb.similarity.v1.SimilarityService)(
        options.similarityAddr,
        grpc.credentials.createInsecure(),
        CLIENT_OPTIONS,
      )
    : undefined;
  const deps: CatalogDeps = {
    logger: silentLogger,
    sites,
    products,
    ...(client ? { similarity: typedClient('similarity', client, options.deadlineMs ?? 30_000) } : {}),
    indexOnWriteMs: options.deadlineMs ?? 30_000,
  };
  try {
    const [group, action, ...rest] = argv;
    if (group === 'products' && action === 'import') return await importProducts(deps, rest, out, stderr);
    if (group === 'reindex' && action === 'products' && rest.length === 0)
      return await reindexProducts(deps, out, stderr);
    if (group === 'index' && (action === 'errors' || action === 'retry'))
      return await indexErrors(deps, action, rest, out);
    throw new CatalogUsageError(`Unknown command "${[group, action].filter(Boolean).join(' ')}"`);
  } finally {
    client?.close();
  }
}

async function importProducts(
  deps: CatalogDeps,
  args: string[],
  out: (line: string) => void,
  stderr: NodeJS.WritableStream,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { tenant: { type: 'string' }, site: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new CatalogUsageError((err as Error).message);
  }
  const { tenant, site: siteRef } = parsed.values;
  if (!tenant) throw new CatalogUsageError('--tenant <tenant-id> is required');
  if (!siteRef) throw new CatalogUsageError('--site <slug-or-uuid> is required');
  if (parsed.positionals.length !== 1) throw new CatalogUsageError('products import takes exactly one <file.jsonl>');
  const file = parsed.positionals[0] as string;
  const site = await deps.sites.find(tenant, siteRef);
  if (!site) throw new CatalogUsageError(`Site "${siteRef}" not found in tenant "${tenant}"`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new CatalogUsageError(`Cannot read ${file}: ${(err as Error).message}`);
  }
  // JSON lines: one product per non-blank line; line numbers count every line of the file.
  const lines = text
    .split(/\r?\n/)
    .map((t, i) => ({ line: i + 1, text: t }))
    .filter((l) => l.text.trim() !== '');
  const bar = new SingleBar(
    {
      stream: stderr,
      format: 'import |{bar}| {value}/{total} products | {percentage}% | ETA {eta}s',
      hideCursor: false,
    },
    Presets.shades_classic,
  );
  bar.start(lines.length, 0);
  const counts = { created: 0, updated: 0, unchanged: 0, error: 0, recomputed: 0, skipped: 0, pending: 0 };
  const problems: string[] = [];
  for (let start = 0; start < lines.length; start += BATCH) {
    const chunk = lines.slice(start, start + BATCH);
    const items = chunk.map((l) => productFromJsonText(l.text, []));
    const results = await bulkUpsert(deps, tenant, site, items, {
      source: 'import',
      onItem: (n) => bar.update(start + n),
    });
    for (const r of results) {
      counts[r.status]++;
      if (r.embeddings) counts[r.embeddings]++;
      if (r.status === 'error') {
        const line = (chunk[r.index] as { line: number }).line;
        for (const e of r.errors ?? [])
          problems.push(`line ${line}: ${e.loc.filter((x) => typeof x === 'string').join('.') || '(line)'}: ${e.msg}`);
      }
    }
  }
  bar.stop();
  for (const p of problems) stderr.write(`${p}\n`);
  out(
    `Imported ${lines.length} lines into site "${site.slug}" of tenant "${tenant}": ${counts.created} created, ${counts.updated} updated, ` +
      `${counts.unchanged} unchanged, ${counts.error} failed; embeddings ${counts.recomputed} recomputed, ${counts.skipped} skipped, ${counts.pending} pending`,
  );
  return counts.error > 0 ? 1 : 0;
}

/**
 * Rebuilds the products index from MongoDB (the rules: @kb/common reindex). A refused product
 * is recorded (index errors) and does not hold up the swap: it would be refused by any index of
 * this mapping. Anything else not indexed leaves the alias on the old index and fails.
 */
async function reindexProducts(
  deps: CatalogDeps,
  out: (line: string) => void,
  stderr: NodeJS.WritableStream,
): Promise<number> {
  const similarity = deps.similarity;
  if (!similarity)
    throw new CatalogUsageError(
      'The similarity service address is not known (start the stack with `npm start`, or set SIMILARITY_GRPC_ADDR)',
    );
  const bar = new SingleBar(
    { stream: stderr, format: 'reindex |{bar}| {value}/{total} products', hideCursor: false },
    Presets.shades_classic,
  );
  const result = await reindex({
    kind: 'products',
    similarity,
    caller: systemCaller('catalog', ''), // an empty tenant: the similarity service's cross-tenant system caller
    pageSize: BATCH,
    page: (after, limit) => deps.products.allAfter(after, limit),
    indexPage: async (batch: Product[], targetIndex) => {
      const ok = await indexNow(
        deps,
        batch.map((d) => ({ ...d, reuse_vectors: false })),
        { targetIndex, deadlineMs: 60_000 },
      );
      return { indexed: ok.indexed.size, refused: ok.refused.size };
    },
    requeueWrittenSince: (since) => deps.products.markChangedSince(since),
    onBegun: async () => bar.start(await deps.products.countAll(), 0),
    onPage: (done) => bar.update(done),
  });
  bar.stop();
  if (!result.finished) {
    stderr.write(
      `reindex: ${result.failed} products could not be indexed${result.error ? ` (${result.error})` : ''}; the alias still points at the old index\n`,
    );
    return 1;
  }
  out(
    `Reindexed ${result.done} products into ${result.index} (alias ${result.alias}); ${result.finished.requeued} written meanwhile are queued for the indexer`,
  );
  if (result.refused > 0)
    out(`${result.refused} products were refused by the search index: see \`admin index errors --kind products\``);
  return 0;
}

/**
 * `index errors`: the products the search index refused (with their reason, attempts and the
 * refused version); `index retry`: queues them (or the given ids) for the running catalog's
 * indexer again. `--kind entries` is the knowledge CLI's part: nothing to do here.
 */
async function indexErrors(
  deps: CatalogDeps,
  action: 'errors' | 'retry',
  args: string[],
  out: (line: string) => void,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { tenant: { type: 'string' }, kind: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new CatalogUsageError((err as Error).message);
  }
  const { tenant, kind } = parsed.values;
  if (kind !== undefined && kind !== 'products' && kind !== 'entries')
    throw new CatalogUsageError(`--kind must be products or entries, got "${kind}"`);
  if (kind === 'entries') return 0;
  if (action === 'errors') {
    if (parsed.positionals.length) throw new CatalogUsageError(`Unexpected argument "${parsed.positionals[0]}"`);
    const refused = await deps.products.indexErrors(tenant);
    for (const p of refused)
      if (p.index_error) out(indexErrorLine('products', { ...p, queued: p.needs_index, index_error: p.index_error }));
    out(
      refused.length
        ? `${refused.length} products refused by the search index${tenant ? ` in tenant ${tenant}` : ''}`
        : `No products refused by the search index${tenant ? ` in tenant ${tenant}` : ''}`,
    );
    return 0;
  }
  const queued = await deps.products.retryIndexErrors(tenant, parsed.positionals);
  out(
    `Queued ${queued} refused products for indexing again${tenant ? ` in tenant ${tenant}` : ''} (the running catalog's indexer takes them)`,
  );
  return 0;
}

/**
 * The catalog's admin commands as a process: MONGODB_URI, and SIMILARITY_GRPC_ADDR for
 * indexing (else the running catalog's indexer takes the products). `npm run admin` and the
 * catalog image's `node /app/admin.js` both end here.
 */
export async function main(
  argv = process.argv.slice(2),
  similarityAddr = process.env.SIMILARITY_GRPC_ADDR,
): Promise<number> {
  return runAdminProcess({
    argv,
    usage: CATALOG_USAGE,
    isUsageError: (err) => err instanceof CatalogUsageError,
    run: (connection, out) => runCatalogAdmin(argv, connection, out, similarityAddr ? { similarityAddr } : {}),
  });
}
