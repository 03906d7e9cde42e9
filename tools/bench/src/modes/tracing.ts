/** BENCH_ONLY=tracing: BENCH_PRODUCTS products loaded, then only what tracing costs searches and writes (tracingCost). */
import { ingest } from '../api-writes';
import { catalogue } from '../catalogue';
import { log } from '../log';
import type { Session, SessionMode } from '../session';
import { tracingCost } from '../tracing-cost';

export const tracingMode: SessionMode = { run: tracingRun, writesReport: true, printsReport: false };

async function tracingRun({ ctx, report, receiver }: Session): Promise<void> {
  log(`loading ${ctx.settings.products} products`);
  await ingest(ctx, catalogue(ctx.settings.products));
  report.tracing = await tracingCost(ctx, receiver, true);
}
