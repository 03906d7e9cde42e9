/**
 * BENCH_ONLY=search: the catalogue and entries loaded, then only similar search (one anchor),
 * product search and entry search against their raw queries; BENCH_PROFILE=1 adds CPU profiles.
 */
import { ingest, loadEntries } from '../api-writes';
import { catalogue } from '../catalogue';
import { segmentsOf } from '../es-stats';
import { log } from '../log';
import { profileSearches } from '../search-profiles';
import { searchRows } from '../search-rows';
import type { Session, SessionMode } from '../session';
import { similarRow } from '../similar-rows';

export const searchMode: SessionMode = { run: searchRun, writesReport: true, printsReport: false };

async function searchRun({ ctx, report, receiver, nodeArgs }: Session): Promise<void> {
  const count = ctx.settings.products;
  log(`loading ${count} products`);
  const cold = await ingest(ctx, catalogue(count));
  log(`  ${cold.perSecond.toFixed(1)} products/s; products index: ${await segmentsOf(ctx)} segments`);
  await loadEntries(ctx, report);
  log('similar search: description, 1 anchor(s)');
  report.rows.push(await similarRow(ctx, 'description', 1, { throughput: true }));
  log('similar search: description, 1 anchor, the same each time');
  report.rows.push(await similarRow(ctx, 'description', 1, { throughput: true, sameAnchors: true }));
  const pq = await searchRows(ctx, report);
  if (nodeArgs) await profileSearches(ctx, report, receiver, nodeArgs, pq);
}
