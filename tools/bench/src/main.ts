/**
 * `npm run bench`: the whole stack against raw Elasticsearch, every figure from one run. See the
 * README, "Performance". Settings (environment): BENCH_PRODUCTS (5000), BENCH_ENTRIES (500),
 * BENCH_QUERIES (300), BENCH_SECONDS (8, per throughput figure), BENCH_SCALE (1000,10000: more
 * catalogue sizes for the scaling table; 50000 works too, and takes long), BENCH_OUT
 * (bench-results), BENCH_PROFILE=1 (a CPU profile of each service, written beside the results),
 * BENCH_MEMORY_LIMITS=chart (each service process in a memory cgroup of the chart's limit; root only).
 *
 * BENCH_ONLY=ingest measures the cold ingest alone (see ingestOnly): BENCH_PRODUCTS (default
 * 2000 there) fresh products per round, BENCH_ROUNDS rounds (1), BENCH_INGEST_ENV to compare
 * service settings in alternating rounds, BENCH_PROFILE=1 for CPU profiles of the services,
 * then BENCH_SINGLE (400) more one upsert each, BENCH_SINGLE_IN_FLIGHT (8) at a time.
 * BENCH_ONLY=tracing: only the tracing-cost comparison (BENCH_TRACING_SETS adds instrumentation
 * sets, BENCH_TRACING_NODE another Node binary for the services).
 * BENCH_ONLY=search: the catalogue and entries loaded, then only similar search (one anchor),
 * product search and entry search against their raw queries (a few minutes).
 * BENCH_ONLY=compare: service settings side by side (see compareSettings): BENCH_COMPARE_ENV
 * (`A=X=1,Y=2;B=X=3`), BENCH_PRODUCTS (default 2000 there), BENCH_ROUNDS (4).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { embeddingTexts } from '@kb/catalog';
import { DEFAULT_PASSAGES } from '@kb/common';
import {
  entryCandidates,
  entryFilter,
  entryMatches,
  entrySearchBodies,
  queryStems,
  queryTermGroups,
  SEMANTIC,
} from '@kb/common/search';
import { checkoutDir, type RunningServices } from '@kb/devstack';
import { Api } from './http';
import { catalogue, entries, entryQueries, productQueries, seededRandom, type BenchProduct } from './catalogue';
import { closedLoop, latencyFigures, median, pairedCost, pairedRounds, timed } from './load';
import {
  aliases,
  allProductVectors,
  bruteForce,
  centroid,
  overlap,
  rawClient,
  rawHybrid,
  rawSimilar,
  similarFilter,
  VECTOR_FIELDS,
  type VectorField,
} from './raw';
import { BareSession } from './onnx';
import { breakdown, SpanReceiver, type Span } from './spans';
import { backendGroups, cpuMs, INDEX_PREFIX, peakMemoryMiB, startBenchStack, TENANT, type BenchStack } from './stack';
import { summariseDir, type ProfileSummary } from './profiles';
import { markdown, writeReport, type Report, type SearchRow, type SimilarRowResult, type TierResult } from './report';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
/**
 * `ingest`: only the cold ingest (ingestOnly); `tracing`: load BENCH_PRODUCTS products and measure
 * only what tracing costs (tracingCost).
 */
const ONLY = process.env.BENCH_ONLY;
if (ONLY !== undefined && !['ingest', 'tracing', 'search', 'compare'].includes(ONLY))
  throw new Error(`BENCH_ONLY: "ingest", "tracing", "search" or "compare", not ${ONLY}`);
const PRODUCTS = env('BENCH_PRODUCTS', ONLY === 'ingest' || ONLY === 'compare' ? 2000 : 5000);
const ENTRIES = env('BENCH_ENTRIES', 500);
const QUERIES = env('BENCH_QUERIES', 300);
const SECONDS = env('BENCH_SECONDS', 8);
const SCALE = (process.env.BENCH_SCALE ?? '1000,10000').split(',').filter(Boolean).map(Number);
const OUT = resolve(checkoutDir(), process.env.BENCH_OUT ?? 'bench-results');
/**
 * Products per bulk call, two calls in flight; a call answered 5xx (a deadline under load) is sent
 * again, up to 3 times (upserts by external id are idempotent).
 */
const BULK = 250;

const log = (msg: string) => process.stdout.write(`[bench] ${msg}\n`);

interface Ctx {
  stack: BenchStack;
  api: Api;
  es: ReturnType<typeof rawClient>;
  index: { products: string; entries: string };
  siteId: string;
  ids: string[];
}

async function ingest(
  ctx: Ctx,
  products: BenchProduct[],
): Promise<{ seconds: number; perSecond: number; texts: number }> {
  const t0 = performance.now();
  // Two bulk calls in flight: one writes while the other's texts are embedded.
  let next = 0;
  const ids: string[] = [];
  await Promise.all(
    [0, 1].map(async () => {
      for (let i = next; i < products.length; i = next) {
        next += BULK;
        const res = await bulkWithRetry(ctx, products.slice(i, i + BULK));
        for (const r of res.results) {
          if (r.status === 'error') throw new Error(`product ${i + r.index} refused: ${JSON.stringify(r)}`);
          ids[i + r.index] = r.id;
        }
      }
    }),
  );
  await waitIndexed(ctx, ids);
  const seconds = (performance.now() - t0) / 1000;
  ctx.ids = [...new Set([...ctx.ids, ...ids])];
  return { seconds, perSecond: products.length / seconds, texts: products.length * 3 };
}

/**
 * The same kind of products one upsert each (`POST /products`), `inFlight` at a time: how a shop
 * that syncs product by product writes. Each upsert answers once its product is searchable, so
 * the figure is answered upserts per second; p50 is one upsert's time.
 */
async function ingestSingly(
  ctx: Ctx,
  products: BenchProduct[],
  inFlight: number,
): Promise<{ seconds: number; perSecond: number; p50Ms: number }> {
  const t0 = performance.now();
  const ids: string[] = [];
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let i = next++; i < products.length; i = next++) {
        const started = performance.now();
        ids[i] = (await ctx.api.post<{ id: string }>(`/products?site_id=${ctx.siteId}`, products[i])).id;
        times.push(performance.now() - started);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  await waitIndexed(ctx, ids);
  ctx.ids = [...new Set([...ctx.ids, ...ids])];
  return { seconds, perSecond: products.length / seconds, p50Ms: median(times) };
}

let bulkRetries = 0;

async function bulkWithRetry(
  ctx: Ctx,
  products: BenchProduct[],
): Promise<{ results: { status: string; id: string; index: number }[] }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.api.post(`/products/bulk?site_id=${ctx.siteId}`, { products });
    } catch (err) {
      if (attempt >= 3 || !/: 5\d\d /.test((err as Error).message)) throw err;
      bulkRetries++;
      log(`  a bulk call failed (${(err as Error).message.slice(0, 120)}); sending it again`);
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
}

/**
 * Until every id is in the index at its latest version: the catalog's backlog is empty, then a
 * refresh shows them all. The backlog (a MongoDB count) is polled first: a forced refresh every
 * 200 ms while products stream in would cut Elasticsearch's segments five times smaller than its
 * own 1 s refresh does, and its merges (HNSW graphs rebuilt) would be the benchmark's doing.
 */
async function waitIndexed(ctx: Ctx, ids: string[]): Promise<void> {
  const deadline = Date.now() + 30 * 60_000;
  const known = new Set(ctx.ids);
  const expected = known.size + new Set(ids.filter((id) => !known.has(id))).size;
  while (Date.now() < deadline) {
    if ((await ctx.stack.backlog()) === 0) {
      await ctx.es.indices.refresh({ index: ctx.index.products });
      const { count } = await ctx.es.count({ index: ctx.index.products, query: { term: { tenant_id: TENANT } } });
      if (count >= expected) return;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('products were not indexed within 30 minutes');
}

/** Reads the anchors' vectors once (not timed) and builds the raw twin of a similar search. */
async function similarCase(ctx: Ctx, anchors: string[], mode: VectorField | 'hybrid') {
  const res = await ctx.es.mget<Record<string, number[]>>(
    {
      index: ctx.index.products,
      ids: anchors,
      _source_includes: VECTOR_FIELDS.map((f) => `vector_${f}`),
    },
    { querystring: { _source_exclude_vectors: false } },
  );
  const docs = res.docs.map((d) => ('_source' in d ? d._source : undefined) ?? {});
  const fields = mode === 'hybrid' ? [...VECTOR_FIELDS] : [mode];
  const centroids = new Map<VectorField, number[]>();
  for (const f of fields) {
    const vs = docs.map((d) => d[`vector_${f}`]).filter((v): v is number[] => Array.isArray(v));
    if (vs.length) centroids.set(f, centroid(vs));
  }
  const k = fields.length > 1 ? 30 : 10;
  const filter = similarFilter(TENANT, anchors);
  const weights = new Map([...centroids.keys()].map((f) => [f, 1 / centroids.size]));
  return {
    body: { anchor_product_ids: anchors, limit: 10, vector_field: mode },
    raw: () => rawSimilar(ctx.es, ctx.index.products, centroids, k, filter),
    centroids,
    weights,
  };
}

function anchorSets(ctx: Ctx, count: number, perQuery: number, seed = 1): string[][] {
  // A seeded shuffle, each query's anchors the next ones in it (a pass further shifted by one), so
  // no two queries ask the same question. (Until 2026-11-27 an LCG in doubles lost precision and
  // repeated: 300 draws named ~120 distinct products.)
  const ids = [...ctx.ids].sort();
  const random = seededRandom(seed);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  const per = Math.min(perQuery, ids.length);
  return Array.from({ length: count }, (_, q) => {
    const start = q * per + Math.floor((q * per) / ids.length);
    return Array.from({ length: per }, (_, k) => ids[(start + k) % ids.length]!);
  });
}

async function similarRow(
  ctx: Ctx,
  mode: VectorField | 'hybrid',
  anchorsPerQuery: number,
  options: { throughput: boolean; recallOf?: Map<string, Record<VectorField, number[]>>; sameAnchors?: boolean },
): Promise<SimilarRowResult> {
  const seed = anchorsPerQuery * 7 + (mode === 'hybrid' ? 3 : 0);
  // Different anchors per query (most seen for the first time), or one set asked about every time.
  const sets = options.sameAnchors
    ? Array.from({ length: QUERIES }, () => anchorSets(ctx, 1, anchorsPerQuery, seed + 1)[0]!)
    : anchorSets(ctx, QUERIES, anchorsPerQuery, seed);
  const cases = await Promise.all(sets.map((a) => similarCase(ctx, a, mode)));
  const got: string[][] = [];
  const rawIds: string[][] = [];
  const rounds = await pairedRounds(QUERIES, {
    service: async (i) => {
      got[i] = (await ctx.api.post<{ products: { id: string }[] }>('/search/similar', cases[i]!.body)).products.map(
        (p) => p.id,
      );
    },
    raw: async (i) => {
      rawIds[i] = (await cases[i]!.raw()).slice(0, 10);
    },
  });
  const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
  const row: SimilarRowResult = {
    what: `similar ${mode}, ${anchorsPerQuery} anchor${anchorsPerQuery > 1 ? 's' : ''}${options.sameAnchors ? ', the same each time' : ''}`,
    service: latencyFigures(rounds.service),
    raw: latencyFigures(rounds.raw),
    overlap: mean(got.map((g, i) => overlap(g, rawIds[i]!))),
  };
  const all = options.recallOf;
  if (all) {
    const exact = cases.map((c) => bruteForce(all, c.centroids, c.weights, new Set(c.body.anchor_product_ids), 10));
    row.recall = mean(got.map((g, i) => overlap(g, exact[i]!)));
    row.rawRecall = mean(rawIds.map((g, i) => overlap(g, exact[i]!)));
  }
  if (options.throughput) {
    const before = cpuOf(ctx);
    const opsBefore = await esOps(ctx);
    row.service8 = await closedLoop(8, SECONDS, (i) => ctx.api.post('/search/similar', cases[i % cases.length]!.body));
    const between = cpuOf(ctx);
    const opsBetween = await esOps(ctx);
    row.raw8 = await closedLoop(8, SECONDS, (i) => cases[i % cases.length]!.raw());
    const opsAfter = await esOps(ctx);
    log(
      `  Elasticsearch work per search, 8 clients: through the gateway ${opsPer(opsBefore, opsBetween, row.service8.count)}; ` +
        `raw ${opsPer(opsBetween, opsAfter, row.raw8.count)}`,
    );
    row.cpuPerRequest = {
      service: perRequest(before, between, row.service8.count),
      raw: perRequest(between, cpuOf(ctx), row.raw8.count),
    };
    row.service1 = await closedLoop(1, SECONDS, (i) => ctx.api.post('/search/similar', cases[i % cases.length]!.body));
    row.raw1 = await closedLoop(1, SECONDS, (i) => cases[i % cases.length]!.raw());
  }
  return row;
}

/** CPU ms of each process (the services, MongoDB, Elasticsearch, this benchmark) so far. */
/** Elasticsearch's counters of the work it was asked for (node totals, every index). */
async function esOps(ctx: Ctx): Promise<Record<string, number>> {
  const res = await ctx.es.nodes.stats({ metric: ['indices', 'http', 'thread_pool'], index_metric: ['search', 'get'] });
  const node = Object.values(res.nodes)[0]!;
  const search = node.indices?.search;
  return {
    queries: search?.query_total ?? 0,
    fetches: search?.fetch_total ?? 0,
    scrolls: search?.scroll_total ?? 0,
    gets: node.indices?.get?.total ?? 0,
    'search threads': node.thread_pool?.['search']?.completed ?? 0,
    http: node.http?.total_opened ?? 0,
  };
}

/** Each counter's growth per request, as `name n.nn`. */
function opsPer(before: Record<string, number>, after: Record<string, number>, requests: number): string {
  return Object.keys(after)
    .map((k) => `${k} ${((after[k]! - (before[k] ?? 0)) / Math.max(1, requests)).toFixed(2)}`)
    .join(', ');
}

function cpuOf(ctx: Ctx): Record<string, number> {
  const out: Record<string, number> = { benchmark: process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000 };
  for (const child of ctx.stack.services?.children ?? []) out[child.name] = cpuMs(child.pgid);
  for (const [name, pgid] of Object.entries(backendGroups(ctx.stack.backends)))
    if (!(name in out)) out[name] = cpuMs(pgid);
  return out;
}

const perRequest = (a: Record<string, number>, b: Record<string, number>, count: number) =>
  Object.fromEntries(Object.keys(b).map((k) => [k, (b[k]! - (a[k] ?? 0)) / Math.max(1, count)]));

const PRODUCT_TEXT_FIELDS = ['title^2', 'brand.text^1.5', 'category.text^1.5', 'description', 'short_description'];
const ADMIN_VISIBLE = ['public', 'community', 'internal', 'restricted', 'workspace'];

/**
 * Product or entry search through the gateway against the raw searches with the same query
 * vector. Entry search's raw side is the multi-search the read path sends (keyword, passage kNN
 * and sentence kNN, built by the same library); the read of the hits' kept fields that follows it
 * in the gateway counts as the service's own cost.
 */
async function searchRow(
  ctx: Ctx,
  kind: 'products' | 'entries',
  queries: string[],
  vectors: Float32Array[],
  userId: string,
): Promise<SearchRow> {
  const entryBodies = (i: number) => {
    const query = queries[i % queries.length]!;
    return entrySearchBodies({
      query,
      stems: queryStems(query, undefined),
      termGroups: queryTermGroups(query, undefined),
      size: entryCandidates(10),
      passagesPerHit: DEFAULT_PASSAGES + 2,
      reading: SEMANTIC.passageChoice,
      filter: entryFilter(TENANT, {
        visibility: {
          visibilities: ADMIN_VISIBLE,
          owner_user_id: `user:${userId}`,
          workspace_scoped: false,
          workspace_ids: [],
        },
        types: [],
      }),
      queryVector: vectors[i % queries.length]!,
    });
  };
  const raw = async (i: number) => {
    if (kind === 'entries') {
      await entryMatches(ctx.es, ctx.index.entries, entryBodies(i));
      return;
    }
    await rawHybrid(ctx.es, {
      index: ctx.index.products,
      query: queries[i % queries.length]!,
      vector: Array.from(vectors[i % queries.length]!),
      filter: { bool: { filter: [{ term: { tenant_id: TENANT } }], must_not: [] } },
      textFields: PRODUCT_TEXT_FIELDS,
      vectorField: 'vector_description',
      // The read path reads each product hit's kept fields with the ids.
      exactFields: ['sku', 'gtin'],
      sourceFields: ['hit'],
      limit: 10,
    });
  };
  const service = (i: number) => ctx.api.post(`/search/${kind}`, { query: queries[i % queries.length]!, limit: 10 });
  // Each query once first, so the service's query-embedding cache is as warm as the raw side's precomputed vectors.
  for (let i = 0; i < queries.length; i++) await service(i);
  const rounds = await pairedRounds(QUERIES, { service, raw });
  return {
    what: `${kind === 'products' ? 'product' : 'entry'} search`,
    service: latencyFigures(rounds.service),
    raw: latencyFigures(rounds.raw),
    service8: await closedLoop(8, SECONDS, service),
    raw8: await closedLoop(8, SECONDS, raw),
  };
}

/** The embedder in the service (Embed over gRPC, uncached) against a bare session, on the same fresh texts. */
async function embedderRows(ctx: Ctx, texts: string[]) {
  const { callerSigner, similarityProto, systemCaller, typedClient, CLIENT_OPTIONS } = await import('@kb/common');
  const grpc = await import('@grpc/grpc-js');
  const client = typedClient(
    'similarity',
    new (similarityProto().kb.similarity.v1.SimilarityService)(
      ctx.stack.services!.grpcAddresses.similarity,
      grpc.credentials.createInsecure(),
      CLIENT_OPTIONS,
    ),
    120_000,
    callerSigner({ secret: ctx.stack.services!.secrets.service }, 'bench'),
  );
  const caller = systemCaller('catalog', TENANT);
  const bare = await BareSession.open(ctx.stack.model);
  const rows: { what: string; batch: number; textsPerSecond: number }[] = [];
  try {
    await bare.embed(texts.slice(0, 8), 8);
    for (const batch of [1, 32]) {
      const half = texts.length / 2;
      // Different halves per side and size, so the service's own caches cannot help (Embed is uncached anyway).
      const service = await timed(async () => {
        for (let i = 0; i < half; i += batch)
          await client.call('Embed', { caller, texts: texts.slice(i, Math.min(half, i + batch)) });
      });
      const raw = await timed(() => bare.embed(texts.slice(half), batch));
      rows.push({ what: 'embedder in the service (Embed RPC)', batch, textsPerSecond: half / (service.ms / 1000) });
      rows.push({ what: 'bare onnxruntime-node session', batch, textsPerSecond: half / (raw.ms / 1000) });
    }
    // Does a text's vector depend on its batch-mates? Same texts, batch 1 against batch 32.
    const one = await bare.embed(texts.slice(0, 32), 1);
    const many = await bare.embed(texts.slice(0, 32), 32);
    const worst = Math.min(...one.map((v, i) => v.reduce((s, x, d) => s + x * many[i]![d]!, 0)));
    const served = await client.call('Embed', { caller, texts: texts.slice(0, 32) });
    const servedVsOne = Math.min(
      ...served.vectors.map((e, i) => Array.from(e.values).reduce((s, x, d) => s + x * one[i]![d]!, 0)),
    );
    return { rows, batchedVsAlone: worst, serviceVsBareAlone: servedVsOne };
  } finally {
    client.close();
    await bare.close();
  }
}

const TRACING_ON = (receiver: SpanReceiver) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_BSP_SCHEDULE_DELAY: '1000',
});

/** Peak memory so far: each process's VmHWM, and under BENCH_MEMORY_LIMITS each service's cgroup figures. */
function memory(ctx: Ctx, report: Report): void {
  const into = report.memoryMiB;
  const cgroups = ctx.stack.memoryLimits;
  if (cgroups) report.memoryLimits = cgroups.summary();
  for (const child of ctx.stack.services?.children ?? [])
    into[child.name] = Math.max(into[child.name] ?? 0, peakMemoryMiB(child.pgid));
  for (const [name, pgid] of Object.entries(backendGroups(ctx.stack.backends))) {
    if (!['knowledge', 'catalog', 'similarity', 'gateway'].includes(name))
      into[name] = Math.max(into[name] ?? 0, peakMemoryMiB(pgid));
  }
}

async function main(): Promise<void> {
  const began = performance.now();
  const report: Report = {
    startedAt: new Date().toISOString(),
    machine: { cpus: require('node:os').availableParallelism(), node: process.version },
    settings: { products: PRODUCTS, entries: ENTRIES, queries: QUERIES, seconds: SECONDS, scale: SCALE, bulk: BULK },
    ingest: {},
    rows: [],
    memoryMiB: {},
    tiers: [],
  };
  const receiver = await SpanReceiver.start();
  const stack = await startBenchStack(log);
  report.machine.servicesNode = stack.serviceNodeVersion;
  const profile = process.env.BENCH_PROFILE === '1';
  const profileDir = join(OUT, 'profiles');
  const nodeArgs = profile ? () => ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : undefined;
  let api: Api | undefined;
  try {
    log('starting the services (tracing on, exported to the benchmark)');
    await stack.startServices(TRACING_ON(receiver));
    const token = await stack.token('Admin');
    api = new Api(stack.gatewayUrl, token);
    const es = rawClient(stack.backends.elasticsearchUrl);
    const ctx: Ctx = { stack, api, es, index: aliases(stack.model, INDEX_PREFIX), siteId: '', ids: [] };
    ctx.siteId = (
      await api.post<{ id: string }>('/sites', { slug: 'bench-shop', name: 'Bench shop', language: 'en' })
    ).id;

    if (ONLY === 'tracing') {
      log(`loading ${PRODUCTS} products`);
      const products = catalogue(PRODUCTS);
      await ingest(ctx, products);
      report.tracing = await tracingCost(ctx, receiver, true);
      return;
    }
    if (ONLY === 'compare') {
      log(`loading ${PRODUCTS} products`);
      await ingest(ctx, catalogue(PRODUCTS));
      await compareSettings(ctx, receiver);
      return;
    }
    if (ONLY === 'search') {
      log(`loading ${PRODUCTS} products`);
      ctx.ids = [];
      const cold = await ingest(ctx, catalogue(PRODUCTS));
      log(`  ${cold.perSecond.toFixed(1)} products/s; products index: ${await segmentsOf(ctx)} segments`);
      await loadEntries(ctx, report);
      log('similar search: description, 1 anchor(s)');
      report.rows.push(await similarRow(ctx, 'description', 1, { throughput: true }));
      log('similar search: description, 1 anchor, the same each time');
      report.rows.push(await similarRow(ctx, 'description', 1, { throughput: true, sameAnchors: true }));
      const pq = await searchRows(ctx, report);
      if (nodeArgs) await profileSearches(ctx, report, receiver, nodeArgs, pq);
      return;
    }
    const sizes = [...new Set([...SCALE, PRODUCTS])].sort((a, b) => a - b);
    const products = catalogue(sizes.at(-1)!);
    let loaded = 0;
    for (const size of sizes) {
      log(`loading products ${loaded}–${size} (cold embedding cache)`);
      const cold = await ingest(ctx, products.slice(loaded, size));
      log(
        `  ${size - loaded} products in ${cold.seconds.toFixed(1)} s: ${cold.perSecond.toFixed(1)} products/s` +
          `${bulkRetries ? ` (${bulkRetries} bulk calls sent again so far)` : ''}`,
      );
      const tier: TierResult = {
        products: size,
        ingestCold: { products: size - loaded, perSecond: cold.perSecond, seconds: cold.seconds },
        similar: [],
      };
      loaded = size;
      if (size === PRODUCTS) {
        report.ingest.cold = {
          products: PRODUCTS,
          perSecond: PRODUCTS / (report.tiers.reduce((s, t) => s + t.ingestCold.seconds, 0) + cold.seconds),
          textsPerSecond: 0,
        };
        report.ingest.cold.textsPerSecond = report.ingest.cold.perSecond * 3;
        await mainTier(ctx, report, products.slice(0, size), receiver, nodeArgs);
        tier.similar = report.rows.filter((r): r is SimilarRowResult => r.what.startsWith('similar'));
        tier.productSearch = report.rows.find((r) => r.what === 'product search');
      } else {
        for (const anchors of [1, 3, 10])
          tier.similar.push(await similarRow(ctx, 'description', anchors, { throughput: anchors === 1 }));
        tier.similar.push(await similarRow(ctx, 'hybrid', 1, { throughput: false }));
      }
      report.tiers.push(tier);
      memory(ctx, report);
      writeReport(report, OUT);
    }
  } finally {
    report.seconds = (performance.now() - began) / 1000;
    if (stack.memoryLimits) report.memoryLimits = stack.memoryLimits.summary();
    if (ONLY !== 'compare') writeReport(report, OUT); // compare writes compare.json alone
    await api?.close();
    await stack.stop();
    await receiver.close();
  }
  if (ONLY !== 'compare') process.stdout.write(`\n${markdown(report)}\n`);
}

/** Product and entry search against their raw queries (query vectors from a bare session); the product queries. */
async function searchRows(ctx: Ctx, report: Report): Promise<string[]> {
  const bare = await BareSession.open(ctx.stack.model);
  const pq = productQueries(50);
  const eq = entryQueries(50);
  const pv = await bare.embed(pq, 1);
  const ev = await bare.embed(eq, 1);
  await bare.close();
  const userId = (await ctx.api.call<{ user_id?: string }>('GET', '/me').catch(() => ({ user_id: '' }))).user_id ?? '';
  log('product search');
  report.rows.push(await searchRow(ctx, 'products', pq, pv, userId));
  log('entry search');
  report.rows.push(await searchRow(ctx, 'entries', eq, ev, userId));
  writeReport(report, OUT);
  return pq;
}

/** CPU profiles of the services under 8 clients of similar search, then product search (BENCH_PROFILE=1). */
async function profileSearches(
  ctx: Ctx,
  report: Report,
  receiver: SpanReceiver,
  nodeArgs: () => string[],
  pq: string[],
): Promise<void> {
  log('CPU profiles: similar search, then product search, 8 clients, with the services under --cpu-prof');
  await ctx.stack.startServices(TRACING_ON(receiver), nodeArgs);
  const cases = await Promise.all(anchorSets(ctx, 100, 1, 5).map((a) => similarCase(ctx, a, 'description')));
  await closedLoop(8, 20, (i) => ctx.api.post('/search/similar', cases[i % cases.length]!.body));
  await closedLoop(8, 10, (i) => ctx.api.post('/search/products', { query: pq[i % pq.length]!, limit: 10 }));
  const pids = Object.fromEntries(ctx.stack.services!.children.map((c) => [c.name, c.pgid]));
  await ctx.stack.startServices(TRACING_ON(receiver));
  report.profiles = summariseDir(join(OUT, 'profiles'), pids);
}

/** BENCH_ENTRIES knowledge entries through the API, four in flight, timed until indexed. */
async function loadEntries(ctx: Ctx, report: Report): Promise<void> {
  log(`writing ${ENTRIES} knowledge entries`);
  const category = await ctx.api.post<{ id: string }>('/categories', { name: 'Bench FAQ' });
  const t0 = performance.now();
  const list = entries(ENTRIES);
  let next = 0;
  await Promise.all(
    [0, 1, 2, 3].map(async () => {
      while (next < list.length) {
        const e = list[next++]!;
        await ctx.api.post('/knowledge-entries', { ...e, category_id: category.id, visibility: 'internal' });
      }
    }),
  );
  while ((await ctx.stack.backlog()) > 0) await new Promise((r) => setTimeout(r, 200));
  report.ingest.entries = { entries: ENTRIES, perSecond: ENTRIES / ((performance.now() - t0) / 1000) };
}

async function mainTier(
  ctx: Ctx,
  report: Report,
  products: BenchProduct[],
  receiver: SpanReceiver,
  nodeArgs: (() => string[]) | undefined,
): Promise<void> {
  log(`re-writing ${products.length} products with a new price (warm embedding cache)`);
  const warm = await ingest(
    ctx,
    products.map((p) => ({ ...p, price_current: p.price_current + 1 })),
  );
  report.ingest.warm = { products: products.length, perSecond: warm.perSecond, textsPerSecond: warm.perSecond * 3 };

  await loadEntries(ctx, report);

  log('reading every vector for brute force');
  const all = await allProductVectors(ctx.es, ctx.index.products, TENANT);
  for (const [mode, anchors] of [
    ['description', 1],
    ['hybrid', 1],
    ['description', 3],
    ['description', 10],
  ] as const) {
    log(`similar search: ${mode}, ${anchors} anchor(s)`);
    report.rows.push(await similarRow(ctx, mode, anchors, { throughput: anchors === 1, recallOf: all }));
  }
  log('similar search: description, 1 anchor, the same each time');
  report.rows.push(await similarRow(ctx, 'description', 1, { throughput: true, recallOf: all, sameAnchors: true }));
  const pq = await searchRows(ctx, report);

  if (nodeArgs) await profileSearches(ctx, report, receiver, nodeArgs, pq);

  log('embedder: the service against a bare session');
  // The texts the catalog embeds for products (title plus description, properties, attributes), of products not loaded.
  const fresh = catalogue(products.length + 86)
    .slice(products.length)
    .flatMap((p) =>
      Object.values(
        embeddingTexts({
          ...p,
          short_description: p.short_description,
          embedding_text_description: null,
          embedding_text_properties: null,
          embedding_text_attributes: null,
        }),
      ),
    )
    .filter((t): t is string => typeof t === 'string' && t.trim() !== '')
    .slice(0, 256);
  report.embedder = await embedderRows(ctx, fresh);

  log(`${TRACED} traced similar searches, per hop`);
  // A client's sampled traceparent is only a wish (issue 23): the services sample every trace
  // here, so each of these requests is traced.
  await ctx.stack.startServices({ ...TRACING_ON(receiver), OTEL_TRACES_SAMPLER: 'parentbased_always_on' });
  for (const anchors of anchorSets(ctx, 20, 1, 98))
    await ctx.api.post('/search/similar', { anchor_product_ids: anchors });
  const traced: string[] = [];
  for (const anchors of anchorSets(ctx, TRACED, 1, 99)) {
    const traceId = randomHex(16);
    traced.push(traceId);
    await ctx.api.post(
      '/search/similar',
      { anchor_product_ids: anchors, limit: 10, vector_field: 'description' },
      { traceparent: `00-${traceId}-${randomHex(8)}-01` },
    );
  }
  await new Promise((r) => setTimeout(r, 5000));
  report.hops = medianBreakdown(traced.map((id) => receiver.trace(id)));
  memory(ctx, report);

  report.tracing = await tracingCost(ctx, receiver);
  await ctx.stack.startServices(TRACING_ON(receiver));
}

/**
 * Similar search at 8 clients with tracing off, on at the default sampling and on for every
 * request. Each mode is a set of the four services of its own, all running side by side against
 * the same backends, measured in turn in short slices (the order turned every round): restarting
 * the services per mode, as this did before, measured JIT, connection pools and Elasticsearch's
 * state after each restart along with the mode (rounds of one mode differed by up to 40%).
 * BENCH_TRACING_SETS (a comma list of instrumentation sets, names joined by `+`, `none` for the
 * SDK alone) adds a mode per set, on at the default sampling with only those instrumentations;
 * `withWrites` also measures a write (a category created) in each mode. BENCH_TRACING_NODE (a
 * Node binary) adds off and on with the services run by it.
 */
async function tracingCost(
  ctx: Ctx,
  receiver: SpanReceiver,
  withWrites = false,
): Promise<NonNullable<Report['tracing']>> {
  const sets = (process.env.BENCH_TRACING_SETS ?? '').split(',').filter(Boolean);
  log(
    `tracing cost: similar search${withWrites ? ' and category create' : ''} at 8 clients, tracing off / on (default ` +
      `sampling) / every request traced${sets.length ? ` / ${sets.join(' / ')}` : ''}, one set of services per ` +
      `mode side by side, ${TRACING_ROUNDS} rounds of ${TRACING_SLICE_SECONDS} s slices after a warm-up round`,
  );
  const cases = await Promise.all(anchorSets(ctx, 100, 1, 5).map((a) => similarCase(ctx, a, 'description')));
  const modes: Record<string, { env: Record<string, string>; node?: string }> = {
    off: { env: { OTEL_SDK_DISABLED: 'true' } },
    on: { env: TRACING_ON(receiver) },
    always: { env: { ...TRACING_ON(receiver), OTEL_TRACES_SAMPLER: 'parentbased_always_on' } },
  };
  // A set is `a+b` (those instrumentations; `none`: the SDK alone), optionally followed by
  // `;NAME=value` settings (e.g. `http+mongodb;LOG_LEVEL=debug`); nothing before `;` keeps the default.
  for (const set of sets) {
    const [instrumentations, ...settings] = set.split(';');
    modes[set] = {
      env: {
        ...TRACING_ON(receiver),
        ...(instrumentations ? { OTEL_NODE_ENABLED_INSTRUMENTATIONS: instrumentations.split('+').join(',') } : {}),
        ...Object.fromEntries(settings.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
      },
    };
  }
  // BENCH_TRACING_NODE: off and on again with the services on another Node binary, in the same rounds.
  const otherNode = process.env.BENCH_TRACING_NODE;
  if (otherNode) {
    modes['off, other node'] = { env: modes.off!.env, node: otherNode };
    modes['on, other node'] = { env: modes.on!.env, node: otherNode };
  }
  // Every search through every hop: the loops repeat their 100 questions, which kept answers
  // (SIMILAR_CACHE_HITS) would give from the gateway alone, and what tracing costs the hops would not show.
  for (const mode of Object.values(modes)) mode.env = { SIMILAR_CACHE_HITS: '0', ...mode.env };
  const names = Object.keys(modes);
  const runs: Record<string, number[]> = Object.fromEntries(names.map((m) => [m, []]));
  const writeRuns: Record<string, number[]> = Object.fromEntries(names.map((m) => [m, []]));
  // CPU ms per request of the mode's four services: steadier than req/s on a machine shared with other work.
  const cpu: Record<string, number[]> = Object.fromEntries(names.map((m) => [m, []]));
  const writeCpu: Record<string, number[]> = Object.fromEntries(names.map((m) => [m, []]));
  // The main services rest meanwhile (their idle work would fall on every mode alike; none is better).
  await ctx.stack.stopServices();
  const running: Record<string, { api: Api; services: RunningServices }> = {};
  try {
    for (const [k, mode] of names.entries()) {
      const set = await ctx.stack.startServiceSet(`tracing-${k}`, modes[mode]!.env, modes[mode]!.node);
      running[mode] = { api: ctx.api.at(set.gatewayUrl), services: set.services };
    }
    const servicesCpu = (mode: string) =>
      running[mode]!.services.children.reduce((sum, child) => sum + cpuMs(child.pgid), 0);
    const search = (mode: string) => (i: number) =>
      running[mode]!.api.post('/search/similar', cases[i % cases.length]!.body);
    // The write: a category created (gateway → knowledge → MongoDB). A product upsert measured the
    // embedder (its cache is cold in a new set) and left indexing behind for the next mode.
    let created = 0;
    const write = (mode: string) => () =>
      running[mode]!.api.post('/categories', { name: `Bench category ${Date.now()}-${++created}` });
    // Elasticsearch merges what the load wrote for a while after it: the first mode measured would pay for it.
    await mergesSettled(ctx);
    const slice = async (mode: string, fn: (i: number) => Promise<unknown>) => {
      const before = servicesCpu(mode);
      const done = await closedLoop(8, TRACING_SLICE_SECONDS, fn);
      return { perSecond: done.perSecond, cpu: (servicesCpu(mode) - before) / Math.max(1, done.count) };
    };
    // Elasticsearch's kNN kept getting cheaper for the first thousands of searches after the load
    // (throughput doubled over the first minute): each set searches a while first, then round 0
    // (not counted) warms every set up again right before the counted ones.
    for (const mode of names) await closedLoop(8, TRACING_WARM_UP_SECONDS, search(mode));
    for (let round = -1; round < TRACING_ROUNDS; round++) {
      const counted = round >= 0;
      for (const mode of round % 2 === 0 ? names : [...names].reverse()) {
        const searched = await slice(mode, search(mode));
        const wrote = withWrites ? await slice(mode, write(mode)) : undefined;
        const line =
          `  ${mode}: ${searched.perSecond.toFixed(1)} searches/s, ${searched.cpu.toFixed(2)} ms CPU` +
          (wrote ? `; ${wrote.perSecond.toFixed(1)} writes/s, ${wrote.cpu.toFixed(2)} ms CPU` : '');
        if (!counted) {
          log(`${line} (warm-up round, not counted)`);
          continue;
        }
        runs[mode]!.push(searched.perSecond);
        cpu[mode]!.push(searched.cpu);
        if (wrote) {
          writeRuns[mode]!.push(wrote.perSecond);
          writeCpu[mode]!.push(wrote.cpu);
        }
        log(line);
      }
    }
  } finally {
    for (const set of Object.values(running)) {
      await set.api.close();
      await set.services.stop();
    }
  }
  const off = median(runs.off!);
  const cost = (mode: string) => pairedCost(runs, mode);
  return {
    runs,
    on: median(runs.on!),
    off,
    always: median(runs.always!),
    cost: cost('on'),
    alwaysCost: cost('always'),
    ...(sets.length ? { sets: Object.fromEntries(sets.map((s) => [s, cost(s)])) } : {}),
    cpu,
    ...(withWrites ? { writeRuns, writeCpu } : {}),
  };
}

/** The products index's segments now (kNN searches each segment's graph). */
async function segmentsOf(ctx: Ctx): Promise<number> {
  const stats = await ctx.es.indices.stats({ index: ctx.index.products, metric: 'segments' });
  return stats._all.primaries?.segments?.count ?? 0;
}

/** Until the products index has no merge running (at most a minute). */
async function mergesSettled(ctx: Ctx): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const stats = await ctx.es.indices.stats({ index: ctx.index.products, metric: 'merge' });
    if ((stats._all.primaries?.merges?.current ?? 0) === 0) return;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Rounds of the tracing-cost comparison (each runs every mode for a slice, in alternating order,
 * after one warm-up round). Short slices, many rounds: neighbouring slices see the same machine.
 */
const TRACING_ROUNDS = 10;
const TRACING_SLICE_SECONDS = 3;
const TRACING_WARM_UP_SECONDS = 12;

/** Traced requests whose per-hop times are reported (their medians: one request alone is noise). */
const TRACED = 25;

function medianBreakdown(traces: Span[][]): {
  total: number;
  hops: { hop: string; ms: number }[];
  spans: number;
  traces: number;
} {
  const each = traces.filter((t) => t.length > 0).map((t) => breakdown(t));
  const names = [...new Set(each.flatMap((b) => b.hops.map((h) => h.hop)))];
  const hops = names
    .map((hop) => ({ hop, ms: median(each.map((b) => b.hops.find((h) => h.hop === hop)?.ms ?? 0)) }))
    .sort((a, b) => b.ms - a.ms);
  return {
    total: median(each.map((b) => b.total)),
    hops,
    spans: median(traces.map((t) => t.length)),
    traces: each.length,
  };
}

function randomHex(bytes: number): string {
  return require('node:crypto').randomBytes(bytes).toString('hex');
}

/** A product's non-empty embedding texts, as the catalog builds them. */
const textsOf = (p: BenchProduct) =>
  Object.values(
    embeddingTexts({
      ...p,
      short_description: p.short_description,
      embedding_text_description: null,
      embedding_text_properties: null,
      embedding_text_attributes: null,
    }),
  ).filter((t): t is string => typeof t === 'string' && t.trim() !== '');

/**
 * BENCH_ONLY=ingest: the cold ingest alone, BENCH_ROUNDS rounds of BENCH_PRODUCTS new products
 * each, with each process's CPU per product. BENCH_INGEST_ENV (`A=X=1,Y=2;B=X=3`) names service
 * settings to compare: the services are restarted with each in turn before a round (rounds
 * alternate between them; the machine is shared, so compare alternating rounds). After each
 * round's bulks, BENCH_SINGLE more products (default 400; 0: none) one upsert each,
 * BENCH_SINGLE_IN_FLIGHT at a time (default 8; ingestSingly). Writes `ingest.json` beside the
 * other results.
 */
async function ingestOnly(): Promise<void> {
  const rounds = env('BENCH_ROUNDS', 1);
  const variants = settingVariants(process.env.BENCH_INGEST_ENV);
  if (variants.length === 0) variants.push({ name: 'as configured', env: {} });
  const receiver = await SpanReceiver.start();
  const stack = await startBenchStack(log).catch(async (err: unknown) => {
    await receiver.close(); // else its server keeps this process alive after the error
    throw err;
  });
  const profileDir = join(OUT, 'profiles');
  const nodeArgs = process.env.BENCH_PROFILE === '1' ? () => ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : undefined;
  const results: {
    round: number;
    variant: string;
    products: number;
    texts: number;
    seconds: number;
    productsPerSecond: number;
    textsPerSecond: number;
    cpuMsPerProduct: Record<string, number>;
    profiles?: Record<string, ProfileSummary>;
    single?: {
      products: number;
      inFlight: number;
      perSecond: number;
      p50Ms: number;
      cpuMsPerProduct: Record<string, number>;
    };
  }[] = [];
  let ctx: Ctx | undefined;
  const single = env('BENCH_SINGLE', 400);
  const inFlight = env('BENCH_SINGLE_IN_FLIGHT', 8);
  try {
    const products = catalogue((PRODUCTS + single) * rounds);
    const singles = products.splice(PRODUCTS * rounds);
    for (let round = 0; round < rounds; round++) {
      const variant = variants[round % variants.length]!;
      log(`round ${round + 1}: starting the services (${variant.name})`);
      await stack.startServices({ ...TRACING_ON(receiver), ...variant.env }, nodeArgs);
      if (!ctx) {
        const api = new Api(stack.gatewayUrl, await stack.token('Admin'));
        ctx = {
          stack,
          api,
          es: rawClient(stack.backends.elasticsearchUrl),
          index: aliases(stack.model, INDEX_PREFIX),
          siteId: '',
          ids: [],
        };
        ctx.siteId = (
          await api.post<{ id: string }>('/sites', { slug: 'bench-shop', name: 'Bench shop', language: 'en' })
        ).id;
      }
      const batch = products.slice(round * PRODUCTS, (round + 1) * PRODUCTS);
      const texts = batch.reduce((n, p) => n + textsOf(p).length, 0);
      const before = cpuOf(ctx);
      const cold = await ingest(ctx, batch);
      const cpu = perRequest(before, cpuOf(ctx), batch.length);
      log(
        `  ${variant.name}: ${batch.length} products (${texts} texts) in ${cold.seconds.toFixed(1)} s: ` +
          `${cold.perSecond.toFixed(1)} products/s, ${(texts / cold.seconds).toFixed(1)} texts/s; CPU ms per product: ` +
          Object.entries(cpu)
            .map(([k, v]) => `${k} ${v.toFixed(2)}`)
            .join(', '),
      );
      results.push({
        round: round + 1,
        variant: variant.name,
        products: batch.length,
        texts,
        seconds: cold.seconds,
        productsPerSecond: cold.perSecond,
        textsPerSecond: texts / cold.seconds,
        cpuMsPerProduct: cpu,
      });
      if (single > 0) {
        const one = singles.slice(round * single, (round + 1) * single);
        const cpuBefore = cpuOf(ctx);
        const r = await ingestSingly(ctx, one, inFlight);
        const cpuSingle = perRequest(cpuBefore, cpuOf(ctx), one.length);
        log(
          `  ${variant.name}: ${one.length} products one upsert each, ${inFlight} in flight: ` +
            `${r.perSecond.toFixed(1)} products/s, p50 ${r.p50Ms.toFixed(0)} ms; CPU ms per product: ` +
            Object.entries(cpuSingle)
              .map(([k, v]) => `${k} ${v.toFixed(2)}`)
              .join(', '),
        );
        results.at(-1)!.single = { products: one.length, inFlight, ...r, cpuMsPerProduct: cpuSingle };
      }
      if (nodeArgs) {
        const pids = Object.fromEntries(stack.services!.children.map((c) => [c.name, c.pgid]));
        await stack.stopServices();
        results.at(-1)!.profiles = summariseDir(profileDir, pids);
      }
    }
  } finally {
    await ctx?.api.close();
    await stack.stop();
    await receiver.close();
    mkdirSync(OUT, { recursive: true });
    writeFileSync(join(OUT, 'ingest.json'), JSON.stringify({ startedAt: new Date().toISOString(), results }, null, 2));
  }
  const names = [...new Set(results.flatMap((r) => Object.keys(r.cpuMsPerProduct)))];
  const lines = [
    `| round | variant | products | texts | products/s | texts/s | CPU ms per product: ${names.join(' / ')} |`,
    '|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.round} | ${r.variant} | ${r.products} | ${r.texts} | ${r.productsPerSecond.toFixed(1)} | ` +
        `${r.textsPerSecond.toFixed(1)} | ${names.map((n) => (r.cpuMsPerProduct[n] ?? 0).toFixed(2)).join(' / ')} |`,
    ),
  ];
  if (results.some((r) => r.single))
    lines.push(
      '',
      `| round | variant | products, one upsert each | in flight | products/s | p50 ms | CPU ms per product: ${names.join(' / ')} |`,
      '|---|---|---|---|---|---|---|',
      ...results
        .filter((r) => r.single)
        .map(
          ({ round, variant, single: x }) =>
            `| ${round} | ${variant} | ${x!.products} | ${x!.inFlight} | ${x!.perSecond.toFixed(1)} | ${x!.p50Ms.toFixed(0)} | ` +
            `${names.map((n) => (x!.cpuMsPerProduct[n] ?? 0).toFixed(2)).join(' / ')} |`,
        ),
    );
  for (const r of results)
    for (const [name, p] of Object.entries(r.profiles ?? {}))
      lines.push(
        '',
        `round ${r.round}, ${name}: busy ${p.busyMs.toFixed(0)} ms`,
        ...p.byFunction
          .slice(0, 12)
          .map((f) => `  ${f.ms.toFixed(0).padStart(6)} ms ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.fn}`),
      );
  process.stdout.write(`\n${lines.join('\n')}\n`);
}

/** `A=X=1,Y=2;B=X=3`: named sets of service settings (BENCH_INGEST_ENV, BENCH_COMPARE_ENV). */
function settingVariants(spec: string | undefined): { name: string; env: Record<string, string> }[] {
  return (spec ?? '')
    .split(';')
    .filter(Boolean)
    .map((v) => {
      const [name, ...settings] = v.split('=');
      const pairs = settings.join('=').split(',').filter(Boolean);
      return {
        name: name!,
        env: Object.fromEntries(pairs.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
      };
    });
}

/**
 * BENCH_ONLY=compare: service settings side by side on one index. Each BENCH_COMPARE_ENV variant
 * gets a set of the four services of its own (startServiceSet) beside the main one ("as
 * configured"); every query goes to each gateway and to raw Elasticsearch in turn (the order
 * rotating per query), for similar search with a different anchor per query and with the same
 * anchor every time, BENCH_ROUNDS rounds of BENCH_QUERIES. Prints p50 / p99 per round and over
 * all rounds, each against raw kNN; writes `compare.json`. What a setting changes by less than
 * the spread of its rounds is not a difference.
 */
async function compareSettings(ctx: Ctx, receiver: SpanReceiver): Promise<void> {
  const variants = settingVariants(process.env.BENCH_COMPARE_ENV);
  if (variants.length === 0) throw new Error('BENCH_ONLY=compare needs BENCH_COMPARE_ENV (e.g. A=HIT_CACHE_CHARS=0)');
  const rounds = env('BENCH_ROUNDS', 4);
  const sets: { name: string; api: Api; services?: RunningServices }[] = [{ name: 'as configured', api: ctx.api }];
  const results: { cases: string; round: number; p50: Record<string, number>; p99: Record<string, number> }[] = [];
  try {
    for (const [k, v] of variants.entries()) {
      const set = await ctx.stack.startServiceSet(`compare-${k}`, { ...TRACING_ON(receiver), ...v.env });
      sets.push({ name: v.name, api: ctx.api.at(set.gatewayUrl), services: set.services });
    }
    const kinds = {
      'a different anchor per query': anchorSets(ctx, QUERIES, 1, 11),
      'the same anchor every query': Array.from({ length: QUERIES }, () => anchorSets(ctx, 1, 1, 12)[0]!),
    };
    const order = [...sets.map((s) => s.name), 'raw'];
    for (const [kind, anchors] of Object.entries(kinds)) {
      const cases = await Promise.all(anchors.map((a) => similarCase(ctx, a, 'description')));
      const call = (name: string, i: number) =>
        name === 'raw'
          ? cases[i]!.raw()
          : sets.find((s) => s.name === name)!.api.post('/search/similar', cases[i]!.body);
      // Each gateway warmed up (its anchors and hits read ahead, the JIT) before anything counts.
      for (const name of order) for (let i = 0; i < Math.min(200, QUERIES); i++) await call(name, i);
      const all: Record<string, number[]> = Object.fromEntries(order.map((n) => [n, []]));
      for (let round = 1; round <= rounds; round++) {
        const times: Record<string, number[]> = Object.fromEntries(order.map((n) => [n, []]));
        for (let i = 0; i < QUERIES; i++) {
          const turn = [...order.slice(i % order.length), ...order.slice(0, i % order.length)];
          for (const name of turn) times[name]!.push((await timed(() => call(name, i))).ms);
        }
        for (const n of order) all[n]!.push(...times[n]!);
        results.push(figures(kind, round, times));
      }
      results.push(figures(kind, 0, all));
    }
  } finally {
    for (const s of sets) await s.services?.stop();
    mkdirSync(OUT, { recursive: true });
    writeFileSync(join(OUT, 'compare.json'), JSON.stringify({ variants, rounds, results }, null, 2));
  }
  function figures(cases: string, round: number, times: Record<string, number[]>) {
    const f = Object.fromEntries(Object.entries(times).map(([n, ms]) => [n, latencyFigures(ms)]));
    const line = Object.keys(f)
      .filter((n) => n !== 'raw')
      .map(
        (n) => `${n} ${f[n]!.p50.toFixed(2)} / ${f[n]!.p99.toFixed(2)} ms (${(f[n]!.p50 / f['raw']!.p50).toFixed(3)}×)`,
      )
      .join('; ');
    log(
      `${cases}, ${round ? `round ${round}` : 'all rounds'}: ${line}; raw ${f['raw']!.p50.toFixed(2)} / ${f['raw']!.p99.toFixed(2)} ms`,
    );
    return {
      cases,
      round,
      p50: Object.fromEntries(Object.entries(f).map(([n, x]) => [n, x.p50])),
      p99: Object.fromEntries(Object.entries(f).map(([n, x]) => [n, x.p99])),
    };
  }
}

(ONLY === 'ingest' ? ingestOnly() : main()).catch((err: unknown) => {
  process.stderr.write(`npm run bench: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
