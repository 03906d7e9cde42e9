/**
 * BENCH_ONLY=scale: search at tens of thousands of entries and hundreds of thousands of products,
 * with the stand-in embedder (stand-in-embedder.ts; the model would take hours to embed this
 * much on two cores). Every other part runs as deployed: the four services, their indexers, the
 * same indices. Entries: the first 500 through the API, the rest copies of them in MongoDB
 * (new ids and articles) for the background indexer, as after an import (cloneEntries); products
 * in bulk through the API. For each tier (BENCH_SCALE_ENTRIES, default 10000,50000 entries, then
 * BENCH_SCALE_PRODUCTS, default 50000,100000,200000 products): the load's rate, entry search (or product and
 * similar search) through the gateway against its raw twin (p50/p99, BENCH_QUERIES pairs, default
 * 200), the index's size on disk and documents, Elasticsearch's heap. Last, the searches' p50/p99
 * with nothing else running and then while BENCH_SCALE_INGEST (default 20000) more products are
 * written in bulk, after the first products tier. Written to BENCH_OUT/scale.json and scale.md.
 *
 * KB_ES_HEAP_MB and KB_MONGO_HEAP_MB (default 512 each) size the local backends; the in-memory
 * MongoDB stand-in needs about 2 GiB for the default tiers (docs/benchmark.md "Scale").
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ingest } from '../api-writes';
import { catalogue, entries, entryQueries, productQueries, type BenchEntry } from '../catalogue';
import { openContext, type Ctx } from '../context';
import { latencyFigures, type LatencyFigures } from '../load';
import { log } from '../log';
import { aliases } from '../raw';
import type { SearchRow } from '../report';
import { searchRow } from '../search-rows';
import { numberSetting, type BenchSettings } from '../settings';
import { similarRow } from '../similar-rows';
import mongoose from 'mongoose';
import { INDEX_PREFIX, startBenchStack, TENANT } from '../stack';
import { STAND_IN_DIMS, STAND_IN_MODEL, standInVector, startStandInEmbedder } from '../stand-in-embedder';

/** What one tier measured. */
interface ScaleTier {
  what: string;
  /** Documents of the kind the tier loads, in all. */
  count: number;
  load: { added: number; seconds: number; perSecond: number };
  index: IndexFigures;
  heap: HeapFigures;
  rows: SearchRow[];
}

interface IndexFigures {
  /** The index's primaries on disk, and per 1,000 of the tier's documents. */
  bytes: number;
  bytesPer1000: number;
  /** Lucene documents (nested passages and sentences included). */
  luceneDocs: number;
  /** The embedding cache's index, which grows with every distinct text embedded. */
  embeddingCacheBytes: number;
}

interface HeapFigures {
  usedMiB: number;
  maxMiB: number;
}

interface DuringIngest {
  /** Products loaded before (and entries): the index the searches read. */
  atProducts: number;
  products: number;
  seconds: number;
  perSecond: number;
  /** Answered searches' latencies, and the searches answered with an error. */
  idle: Record<string, LatencyFigures & { errors: number }>;
  during: Record<string, LatencyFigures & { errors: number }>;
}

export interface ScaleReport {
  startedAt: string;
  /** The first API_ENTRIES entries, written one by one through the API (eight in flight). */
  apiEntryWrites?: ScaleTier['load'];
  embedder: string;
  queries: number;
  tiers: ScaleTier[];
  duringIngest?: DuringIngest;
  seconds?: number;
}

const listSetting = (name: string, fallback: string) =>
  (process.env[name] ?? fallback)
    .split(',')
    .filter(Boolean)
    .map((x) => {
      const n = Number(x);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${name}: whole numbers, comma-separated, not ${x}`);
      return n;
    });

export async function scaleMode(settings: BenchSettings): Promise<void> {
  const entryTiers = listSetting('BENCH_SCALE_ENTRIES', '10000,50000');
  const productTiers = listSetting('BENCH_SCALE_PRODUCTS', '50000,100000,200000');
  const ingestDuring = numberSetting('BENCH_SCALE_INGEST', 20_000);
  const queries = numberSetting('BENCH_QUERIES', 200);
  const began = performance.now();
  const report: ScaleReport = {
    startedAt: new Date().toISOString(),
    embedder: `${STAND_IN_MODEL} (seeded random unit vectors, ${STAND_IN_DIMS} dims, OpenAI-compatible endpoint)`,
    queries,
    tiers: [],
  };
  const embedder = await startStandInEmbedder();
  log(`stand-in embedder at ${embedder.url}`);
  const stack = await startBenchStack(log).catch((err: unknown) => {
    embedder.stop();
    throw err;
  });
  let ctx: Ctx | undefined;
  try {
    await stack.startServices({
      EMBEDDING_PROVIDER: 'openai',
      EMBEDDING_API_URL: embedder.url,
      EMBEDDING_MODEL_NAME: STAND_IN_MODEL,
      EMBEDDING_DIMS: String(STAND_IN_DIMS),
    });
    ctx = await openContext(stack, { ...settings, queries });
    ctx.index = aliases({ name: STAND_IN_MODEL, dims: STAND_IN_DIMS }, INDEX_PREFIX);
    const category = await ctx.api.post<{ id: string }>('/categories', { name: 'Scale FAQ' });
    const userId =
      (await ctx.api.call<{ user_id?: string }>('GET', '/me').catch(() => ({ user_id: '' }))).user_id ?? '';
    const eq = entryQueries(50);
    const pq = productQueries(50);
    const vectorsOf = (texts: string[]) => texts.map((t) => standInVector(t));

    let loadedEntries = 0;
    for (const target of entryTiers) {
      const load =
        loadedEntries === 0
          ? await loadScaleEntries(ctx, category.id, 0, Math.min(API_ENTRIES, target))
          : { added: 0, seconds: 0, perSecond: 0 };
      if (loadedEntries === 0) {
        report.apiEntryWrites = load;
        loadedEntries = load.added;
      }
      const cloned = target > loadedEntries ? await cloneEntries(ctx, loadedEntries, target) : undefined;
      loadedEntries = target;
      log(`entry search at ${target} entries`);
      const rows = [await searchRow(ctx, 'entries', eq, vectorsOf(eq), userId)];
      report.tiers.push(await tier(ctx, `${target} entries`, target, cloned ?? load, ctx.index.entries, rows));
      write(report, settings.out);
    }
    let loadedProducts = 0;
    for (const target of productTiers) {
      if (target <= loadedProducts) continue;
      log(`loading products ${loadedProducts + 1}-${target}`);
      const cold = await ingest(ctx, catalogue(target).slice(loadedProducts));
      const load = { added: target - loadedProducts, seconds: cold.seconds, perSecond: cold.perSecond };
      loadedProducts = target;
      log(`  ${load.perSecond.toFixed(0)} products/s; product and similar search at ${target} products`);
      const rows = [
        await searchRow(ctx, 'products', pq, vectorsOf(pq), userId),
        await similarRow(ctx, 'description', 1, { throughput: false }),
      ];
      report.tiers.push(await tier(ctx, `${target} products`, target, load, ctx.index.products, rows));
      write(report, settings.out);
      // After the first products tier (a run cut short still has it): searches while more are written.
      if (ingestDuring > 0 && !report.duringIngest) {
        report.duringIngest = await searchDuringIngest(ctx, ingestDuring, loadedProducts, eq, pq);
        loadedProducts += ingestDuring;
        write(report, settings.out);
      }
    }
  } finally {
    report.seconds = (performance.now() - began) / 1000;
    write(report, settings.out);
    await ctx?.api.close();
    await stack.stop();
    embedder.stop();
  }
  process.stdout.write(`\n${scaleMarkdown(report)}\n`);
}

/**
 * Entries `from`+1 … `to` through the API, eight in flight, timed until the indexer's backlog is
 * empty. Each entry is three of the benchmark's FAQ answers as three paragraphs (~9 sentences,
 * ~700 characters): a help-centre article's size, so passages and sentences are indexed as they
 * would be.
 */
async function loadScaleEntries(ctx: Ctx, categoryId: string, from: number, to: number) {
  log(`writing entries ${from + 1}-${to} through the API`);
  const list = scaleArticles(from, to);
  const t0 = performance.now();
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < list.length) {
        const e = list[next++]!;
        await ctx.api.post('/knowledge-entries', { ...e, category_id: categoryId, visibility: 'internal' });
        if (++done % 5000 === 0) log(`  ${from + done} entries written (${rate(done, t0)}/s)`);
      }
    }),
  );
  while ((await ctx.stack.backlog()) > 0) await new Promise((r) => setTimeout(r, 500));
  const seconds = (performance.now() - t0) / 1000;
  log(`  ${list.length} entries searchable in ${seconds.toFixed(0)} s (${(list.length / seconds).toFixed(1)}/s)`);
  return { added: list.length, seconds, perSecond: list.length / seconds };
}

/** Entries written through the API before the rest are copied in MongoDB (cloneEntries). */
const API_ENTRIES = 500;

/**
 * Entries `from`+1 … `to` as the background indexer meets an import: copies, in MongoDB, of the
 * entries the API wrote (every field as the service stored it), each with a new id, a
 * translation group of its own and a new article (title, summary, tags and three paragraphs
 * from the same generator), at version 1 and waiting for the indexer; timed until the indexer's
 * backlog is empty. One by one through the API (API_ENTRIES, ~9-14 per second on this machine,
 * each write indexed and refreshed before it answers) 50,000 would take over an hour.
 */
async function cloneEntries(ctx: Ctx, from: number, to: number) {
  log(`copying entries ${from + 1}-${to} in MongoDB for the background indexer`);
  const connection = await mongoose.createConnection(ctx.stack.mongoUri).asPromise();
  try {
    const collection = connection.collection<Record<string, unknown>>('knowledge_entries');
    const seeds = await collection.find({ tenant_id: TENANT }).limit(API_ENTRIES).toArray();
    if (seeds.length === 0) throw new Error('no entry to copy: none was written through the API');
    const articles = scaleArticles(from, to);
    const t0 = performance.now();
    for (let i = 0; i < articles.length; i += 1000) {
      const now = new Date();
      await collection.insertMany(
        articles.slice(i, i + 1000).map((a, j) => {
          const { index_claim: _claim, index_error: _error, ...seed } = seeds[(i + j) % seeds.length]!;
          return {
            ...seed,
            _id: randomUUID(),
            translation_group_id: randomUUID(),
            title: a.title,
            summary: a.summary,
            content: a.content,
            tags: a.tags,
            version: 1,
            embedding_model: null,
            indexed_version: 0,
            index_pending: true,
            index_seq: 0,
            content_changed_at: now,
            created_at: now,
            updated_at: now,
          };
        }) as never[],
      );
    }
    log(`  ${articles.length} copied in ${((performance.now() - t0) / 1000).toFixed(0)} s; waiting for the indexer`);
    let last = performance.now();
    for (;;) {
      const backlog = await ctx.stack.backlog();
      if (backlog === 0) break;
      if (performance.now() - last > 30_000) {
        log(`  ${articles.length - backlog} indexed (${rate(articles.length - backlog, t0)}/s)`);
        last = performance.now();
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    const seconds = (performance.now() - t0) / 1000;
    log(
      `  ${articles.length} entries searchable in ${seconds.toFixed(0)} s (${(articles.length / seconds).toFixed(1)}/s)`,
    );
    return { added: articles.length, seconds, perSecond: articles.length / seconds };
  } finally {
    await connection.close();
  }
}

/** Articles `from`+1 … `to`: each three of the benchmark's FAQ answers as three paragraphs. */
function scaleArticles(from: number, to: number): BenchEntry[] {
  const parts = entries(to * 3).slice(from * 3);
  const list: BenchEntry[] = [];
  for (let i = 0; i + 2 < parts.length; i += 3) {
    const [a, b, c] = [parts[i]!, parts[i + 1]!, parts[i + 2]!];
    list.push({ ...a, content: [a.content, b.content, c.content].join('\n\n'), tags: [...a.tags, ...b.tags] });
  }
  return list;
}

const rate = (n: number, t0: number) => (n / ((performance.now() - t0) / 1000)).toFixed(1);

async function tier(
  ctx: Ctx,
  what: string,
  count: number,
  load: ScaleTier['load'],
  index: string,
  rows: SearchRow[],
): Promise<ScaleTier> {
  const figures = { what, count, load, index: await indexFigures(ctx, index, count), heap: await heap(ctx), rows };
  for (const r of rows)
    log(
      `  ${r.what}: p50 ${r.service.p50.toFixed(1)} / p99 ${r.service.p99.toFixed(1)} ms ` +
        `(raw ${r.raw.p50.toFixed(1)} / ${r.raw.p99.toFixed(1)})`,
    );
  log(
    `  index ${mib(figures.index.bytes)} MiB (${(figures.index.bytesPer1000 / 2 ** 20).toFixed(1)} MiB per 1,000), ` +
      `heap ${figures.heap.usedMiB.toFixed(0)} of ${figures.heap.maxMiB.toFixed(0)} MiB`,
  );
  return figures;
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

async function indexFigures(ctx: Ctx, index: string, count: number): Promise<IndexFigures> {
  await ctx.es.indices.refresh({ index });
  const stats = await ctx.es.indices.stats({ index, metric: ['store', 'docs'] });
  const cache = await ctx.es.indices.stats({ index: ctx.index.embeddings, metric: ['store'] }).catch(() => undefined);
  const bytes = stats._all.primaries?.store?.size_in_bytes ?? 0;
  return {
    bytes,
    bytesPer1000: (bytes / count) * 1000,
    luceneDocs: stats._all.primaries?.docs?.count ?? 0,
    embeddingCacheBytes: cache?._all.primaries?.store?.size_in_bytes ?? 0,
  };
}

async function heap(ctx: Ctx): Promise<HeapFigures> {
  const res = await ctx.es.nodes.stats({ metric: ['jvm'] });
  const nodes = Object.values(res.nodes);
  const sum = (f: (n: (typeof nodes)[number]) => number | undefined) => nodes.reduce((a, n) => a + (f(n) ?? 0), 0);
  return {
    usedMiB: sum((n) => n.jvm?.mem?.heap_used_in_bytes) / 2 ** 20,
    maxMiB: sum((n) => n.jvm?.mem?.heap_max_in_bytes) / 2 ** 20,
  };
}

/**
 * Entry and product search, one client each back to back, first with nothing else running (as
 * long as the ingest will take, at most a minute), then while `count` new products are written in
 * bulk (two calls of 250 in flight, as the benchmark's ingest sends them).
 */
async function searchDuringIngest(
  ctx: Ctx,
  count: number,
  loaded: number,
  eq: string[],
  pq: string[],
): Promise<DuringIngest> {
  const searches = {
    'entry search': (i: number) => ctx.api.post('/search/entries', { query: eq[i % eq.length]!, limit: 10 }),
    'product search': (i: number) => ctx.api.post('/search/products', { query: pq[i % pq.length]!, limit: 10 }),
  };
  const loop = (until: () => boolean) =>
    Promise.all(
      Object.entries(searches).map(async ([name, fn]) => {
        const ms: number[] = [];
        let errors = 0;
        for (let i = 0; !until(); i++) {
          const t0 = performance.now();
          try {
            await fn(i);
            ms.push(performance.now() - t0);
          } catch {
            // An error answer (e.g. 503 while a dependency is called down) counts, and the loop goes on.
            errors++;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
        return [name, { ...latencyFigures(ms), errors }] as const;
      }),
    ).then((pairs) => Object.fromEntries(pairs));
  log('searches with nothing else running (30 s)');
  const idleEnd = performance.now() + 30_000;
  const idle = await loop(() => performance.now() >= idleEnd);
  log(`searches while ${count} more products are written`);
  let writing = true;
  const searching = loop(() => !writing);
  // New external ids: the catalogue's generator past what is loaded.
  const cold = await ingest(ctx, catalogue(loaded + count).slice(loaded)).finally(() => (writing = false));
  const during = await searching;
  for (const name of Object.keys(searches))
    log(
      `  ${name}: p50 ${idle[name]!.p50.toFixed(1)} → ${during[name]!.p50.toFixed(1)} ms, ` +
        `p99 ${idle[name]!.p99.toFixed(1)} → ${during[name]!.p99.toFixed(1)} ms`,
    );
  log(`  ${cold.perSecond.toFixed(0)} products/s while searched`);
  return { atProducts: loaded, products: count, seconds: cold.seconds, perSecond: cold.perSecond, idle, during };
}

function write(report: ScaleReport, out: string): void {
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'scale.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(out, 'scale.md'), `${scaleMarkdown(report)}\n`);
}

const ms = (x: number) => x.toFixed(1);

/** The scale report's tables. */
export function scaleMarkdown(r: ScaleReport): string {
  const lines = [
    `Scale run of ${r.startedAt}${r.seconds ? ` (${(r.seconds / 60).toFixed(1)} min)` : ''}; embedder: ${r.embedder}; ` +
      `${r.queries} queries per latency figure.`,
    ...(r.apiEntryWrites
      ? [
          '',
          `The first ${r.apiEntryWrites.added} entries written one by one through the API (eight in flight, each ` +
            `indexed before it answers): ${r.apiEntryWrites.perSecond.toFixed(1)}/s. The rest copied in MongoDB ` +
            'and indexed by the background indexer: its rate is the Load column of the entry tiers; products in bulk ' +
            'through the API.',
        ]
      : []),
    '',
    '| Tier | Load (per s) | Search | p50 ms (raw) | p99 ms (raw) | Index MiB | per 1,000 | Lucene docs | ES heap MiB |',
    '| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const t of r.tiers)
    t.rows.forEach((row, i) =>
      lines.push(
        `| ${i === 0 ? t.what : ''} | ${i === 0 ? t.load.perSecond.toFixed(0) : ''} | ${row.what} | ` +
          `${ms(row.service.p50)} (${ms(row.raw.p50)}) | ${ms(row.service.p99)} (${ms(row.raw.p99)}) | ` +
          (i === 0
            ? `${mib(t.index.bytes)} | ${(t.index.bytesPer1000 / 2 ** 20).toFixed(1)} | ${t.index.luceneDocs} | ` +
              `${t.heap.usedMiB.toFixed(0)} of ${t.heap.maxMiB.toFixed(0)} |`
            : '| | | |'),
      ),
    );
  const d = r.duringIngest;
  if (d) {
    lines.push(
      '',
      `With ${d.atProducts} products loaded, while ${d.products} more were written (${d.perSecond.toFixed(0)}/s), ` +
        'one client per search back to back:',
      '',
      '| Search | p50 idle → during (ms) | p99 idle → during (ms) | errors idle → during |',
      '| --- | ---: | ---: | ---: |',
      ...Object.keys(d.idle).map(
        (name) =>
          `| ${name} | ${ms(d.idle[name]!.p50)} → ${ms(d.during[name]!.p50)} | ` +
          `${ms(d.idle[name]!.p99)} → ${ms(d.during[name]!.p99)} | ${d.idle[name]!.errors} → ${d.during[name]!.errors} |`,
      ),
    );
  }
  return lines.join('\n');
}
