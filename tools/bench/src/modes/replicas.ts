/**
 * BENCH_ONLY=replicas (or BENCH_REPLICAS given as a list, `1,2`): the cold ingest and search with
 * each count of replicas in turn, one table. Per count, a stack of its own (fresh backends, so the
 * embedding cache starts empty each time; `count` processes of each service, the calls round
 * robin over the `count` gateways): BENCH_PRODUCTS (2000) products in bulk until indexed, then
 * product search and similar search (one anchor), each BENCH_QUERIES (300) questions asked once
 * one after another, then BENCH_SECONDS (8) of 8 closed-loop clients. Whether the replicas share
 * the work or repeat it: the documents written to the products index and to the embedding cache
 * per product (Elasticsearch's indexing counts) and the services' CPU per product, summed over
 * the replicas. Writes `replicas.json` beside the other results.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ingest } from '../api-writes';
import { catalogue, productQueries } from '../catalogue';
import { openContext, type Ctx } from '../context';
import { indexingOps } from '../es-stats';
import { closedLoop, pairedRounds, percentile } from '../load';
import { log } from '../log';
import { textsOf } from '../product-texts';
import type { BenchSettings } from '../settings';
import { anchorSets } from '../similar-rows';
import { SpanReceiver } from '../spans';
import { startBenchStack } from '../stack';
import { tracingOn } from '../tracing';
import { cpuOf, perRequest } from '../usage';

/** One search's figures with one count of replicas. */
interface SearchFigures {
  /** The questions asked once each, one after another. */
  p50: number;
  p95: number;
  /** 8 closed-loop clients cycling through the same questions. */
  perSecond8: number;
  p50At8: number;
  p95At8: number;
  errors8: number;
}

/** What one count of replicas measured. */
export interface ReplicaRun {
  replicas: number;
  gateways: string[];
  products: number;
  texts: number;
  ingestSeconds: number;
  productsPerSecond: number;
  /** Documents written to the products index per product loaded (indexing.index_total). */
  productIndexOpsPerProduct: number;
  /** Vectors written to the embedding cache per product: texts the model embedded. */
  embeddingsPerProduct: number;
  /** CPU ms per product during the ingest, by process (replicas apart) and summed by service. */
  cpuMsPerProduct: Record<string, number>;
  cpuMsPerProductByService: Record<string, number>;
  productSearch: SearchFigures;
  similar: SearchFigures;
}

export async function replicasMode(settings: BenchSettings): Promise<void> {
  if (process.env.ELASTICSEARCH_URL || process.env.MONGODB_URI)
    throw new Error(
      'BENCH_ONLY=replicas starts fresh backends for each count (an embedding cache kept from the count ' +
        'before would make the next ingest warm): unset ELASTICSEARCH_URL and MONGODB_URI',
    );
  const began = performance.now();
  const startedAt = new Date().toISOString();
  const receiver = await SpanReceiver.start();
  const runs: ReplicaRun[] = [];
  try {
    for (const replicas of settings.replicas) runs.push(await oneCount(settings, replicas, receiver));
  } finally {
    await receiver.close();
    mkdirSync(settings.out, { recursive: true });
    writeFileSync(
      join(settings.out, 'replicas.json'),
      JSON.stringify(
        { startedAt, seconds: (performance.now() - began) / 1000, settings: { ...settings, out: undefined }, runs },
        null,
        2,
      ),
    );
  }
  const minutes = (performance.now() - began) / 60_000;
  process.stdout.write(`\n${replicasTable(runs, settings, startedAt, minutes).join('\n')}\n`);
}

async function oneCount(settings: BenchSettings, replicas: number, receiver: SpanReceiver): Promise<ReplicaRun> {
  log(`${replicas} replica${replicas > 1 ? 's' : ''} of each service: starting a stack`);
  const stack = await startBenchStack(log, { replicas });
  let ctx: Ctx | undefined;
  try {
    await stack.startServices(tracingOn(receiver));
    ctx = await openContext(stack, settings);
    const gateways = [...stack.gatewayUrls()];
    const products = catalogue(settings.products);
    const texts = products.reduce((n, p) => n + textsOf(p).length, 0);
    log(`  loading ${products.length} products (${texts} texts) through ${gateways.length} gateway(s)`);
    const cpuBefore = cpuOf(ctx);
    const opsBefore = await indexingOps(ctx);
    const cold = await ingest(ctx, products);
    const cpu = perRequest(cpuBefore, cpuOf(ctx), products.length);
    const opsAfter = await indexingOps(ctx);
    const run = {
      replicas,
      gateways,
      products: products.length,
      texts,
      ingestSeconds: cold.seconds,
      productsPerSecond: cold.perSecond,
      productIndexOpsPerProduct: (opsAfter.products - opsBefore.products) / products.length,
      embeddingsPerProduct: (opsAfter.embeddings - opsBefore.embeddings) / products.length,
      cpuMsPerProduct: cpu,
      cpuMsPerProductByService: byService(cpu),
    };
    log(
      `  ${cold.perSecond.toFixed(1)} products/s; per product: ${run.productIndexOpsPerProduct.toFixed(2)} products-index ` +
        `writes, ${run.embeddingsPerProduct.toFixed(2)} texts embedded (${(texts / products.length).toFixed(2)} texts); CPU ms: ` +
        Object.entries(run.cpuMsPerProductByService)
          .map(([k, v]) => `${k} ${v.toFixed(1)}`)
          .join(', '),
    );
    log('  product search');
    const queries = productQueries(50);
    const productSearch = await searchFigures(ctx, (i) =>
      ctx!.api.post('/search/products', { query: queries[i % queries.length]!, limit: 10 }),
    );
    log('  similar search, 1 anchor');
    const anchors = anchorSets(ctx, settings.queries, 1, 7);
    const similar = await searchFigures(
      ctx,
      (i) =>
        ctx!.api.post('/search/similar', {
          anchor_product_ids: anchors[i % anchors.length]!,
          limit: 10,
          vector_field: 'description',
        }),
      false,
    );
    return { ...run, productSearch, similar };
  } finally {
    await ctx?.api.close();
    await stack.stop();
  }
}

/**
 * BENCH_QUERIES calls one after another (each question once: similar search's questions are all
 * new; product search's 50 queries are asked once each beforehand, as the full benchmark does, so
 * their embeddings are cached), then 8 closed-loop clients for BENCH_SECONDS.
 */
async function searchFigures(ctx: Ctx, call: (i: number) => Promise<unknown>, warm = true): Promise<SearchFigures> {
  if (warm) for (let i = 0; i < 50; i++) await call(i);
  const { call: ms } = await pairedRounds(ctx.settings.queries, { call });
  const sorted = [...ms].sort((a, b) => a - b);
  const loop = await closedLoop(8, ctx.settings.seconds, call);
  return {
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    perSecond8: loop.perSecond,
    p50At8: loop.p50,
    p95At8: loop.p95 ?? NaN,
    errors8: loop.errors,
  };
}

/** CPU per product summed over a service's replicas (`catalog`, `catalog-2` → catalog). */
function byService(cpu: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, ms] of Object.entries(cpu)) {
    const service = name.replace(/-\d+$/, '');
    out[service] = (out[service] ?? 0) + ms;
  }
  return out;
}

const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '–');
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '–');

/** The counts side by side: ingest and its work per product, then the two searches. */
export function replicasTable(
  runs: ReplicaRun[],
  settings: BenchSettings,
  startedAt: string,
  minutes: number,
): string[] {
  const services = ['knowledge', 'catalog', 'similarity', 'gateway'];
  const cpuOfServices = (r: ReplicaRun) => services.reduce((s, k) => s + (r.cpuMsPerProductByService[k] ?? 0), 0);
  return [
    `Replicas of ${startedAt}: ${settings.products} products (cold embedding cache, bulks of 250, 2 in flight, ` +
      `until indexed), ${settings.queries} questions per latency figure, ${settings.seconds} s of 8 clients per ` +
      `throughput figure; each count on fresh backends, the calls round robin over its gateways; took ${f1(minutes)} min.`,
    '',
    '| replicas | ingest products/s | texts embedded per product | products-index writes per product | ' +
      'services CPU ms per product (similarity) | product search p50 / p95 ms | product search 8 clients req/s (p50 / p95 ms) | ' +
      'similar search p50 / p95 ms | similar search 8 clients req/s (p50 / p95 ms) |',
    '|---|---|---|---|---|---|---|---|---|',
    ...runs.map(
      (r) =>
        `| ${r.replicas} | ${f1(r.productsPerSecond)} | ${f2(r.embeddingsPerProduct)} of ${f2(r.texts / r.products)} | ` +
        `${f2(r.productIndexOpsPerProduct)} | ${f1(cpuOfServices(r))} (${f1(r.cpuMsPerProductByService['similarity'] ?? 0)}) | ` +
        `${f1(r.productSearch.p50)} / ${f1(r.productSearch.p95)} | ${f1(r.productSearch.perSecond8)} ` +
        `(${f1(r.productSearch.p50At8)} / ${f1(r.productSearch.p95At8)}) | ${f1(r.similar.p50)} / ${f1(r.similar.p95)} | ` +
        `${f1(r.similar.perSecond8)} (${f1(r.similar.p50At8)} / ${f1(r.similar.p95At8)}) |`,
    ),
  ];
}
