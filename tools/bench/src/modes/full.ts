/**
 * The whole benchmark (BENCH_ONLY unset): the catalogue loaded size by size (BENCH_SCALE, then
 * BENCH_PRODUCTS), similar search at each size, and at BENCH_PRODUCTS every other figure (mainTier).
 */
import { bulkRetryCount, ingest, loadEntries } from '../api-writes';
import { catalogue, type BenchProduct } from '../catalogue';
import type { Ctx } from '../context';
import { embedderRows, unseenTexts } from '../embedder-rows';
import { tracedHops } from '../hops';
import { log } from '../log';
import { allProductVectors } from '../raw';
import { writeReport, type Report, type SimilarRowResult, type TierResult } from '../report';
import { profileSearches } from '../search-profiles';
import { searchRows } from '../search-rows';
import type { Session, SessionMode } from '../session';
import { similarRow } from '../similar-rows';
import type { SpanReceiver } from '../spans';
import { TENANT } from '../stack';
import { tracingCost } from '../tracing-cost';
import { tracingOn } from '../tracing';
import { recordPeakMemory } from '../usage';

export const fullMode: SessionMode = { run: fullRun, writesReport: true, printsReport: true };

async function fullRun({ ctx, report, receiver, nodeArgs }: Session): Promise<void> {
  const { products: productCount, scale, out } = ctx.settings;
  const sizes = [...new Set([...scale, productCount])].sort((a, b) => a - b);
  const products = catalogue(sizes.at(-1)!);
  let loaded = 0;
  for (const size of sizes) {
    log(`loading products ${loaded}–${size} (cold embedding cache)`);
    const cold = await ingest(ctx, products.slice(loaded, size));
    const retries = bulkRetryCount();
    log(
      `  ${size - loaded} products in ${cold.seconds.toFixed(1)} s: ${cold.perSecond.toFixed(1)} products/s` +
        `${retries ? ` (${retries} bulk calls sent again so far)` : ''}`,
    );
    const tier: TierResult = {
      products: size,
      ingestCold: { products: size - loaded, perSecond: cold.perSecond, seconds: cold.seconds },
      similar: [],
    };
    loaded = size;
    if (size === productCount) {
      report.ingest.cold = {
        products: productCount,
        perSecond: productCount / (report.tiers.reduce((s, t) => s + t.ingestCold.seconds, 0) + cold.seconds),
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
    recordPeakMemory(ctx, report);
    writeReport(report, out);
  }
}

/** At BENCH_PRODUCTS: the warm ingest, entries, every similar row with recall, search, the embedder, hops, tracing. */
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
  report.embedder = await embedderRows(ctx, unseenTexts(products.length));

  report.hops = await tracedHops(ctx, receiver);
  recordPeakMemory(ctx, report);

  report.tracing = await tracingCost(ctx, receiver);
  await ctx.stack.startServices(tracingOn(receiver));
}
