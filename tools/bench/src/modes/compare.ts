/**
 * BENCH_ONLY=compare: service settings side by side on one index. Each BENCH_COMPARE_ENV variant
 * gets a set of the four services of its own (startServiceSet) beside the main one ("as
 * configured"); every query goes to each gateway and to raw Elasticsearch in turn (the order
 * rotating per query), for similar search with a different anchor per query and with the same
 * anchor every time, BENCH_ROUNDS rounds of BENCH_QUERIES. Prints p50 / p99 per round and over
 * all rounds, each against raw kNN; writes `compare.json`. What a setting changes by less than
 * the spread of its rounds is not a difference.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningServices } from '@kb/devstack';
import { ingest } from '../api-writes';
import { catalogue } from '../catalogue';
import type { Api } from '../http';
import { latencyFigures, timed } from '../load';
import { log } from '../log';
import type { Session, SessionMode } from '../session';
import { numberSetting, settingVariants } from '../settings';
import { anchorSets, similarCase } from '../similar-rows';
import { tracingOn } from '../tracing';

export const compareMode: SessionMode = { run: compareRun, writesReport: false, printsReport: false };

async function compareRun({ ctx, receiver }: Session): Promise<void> {
  log(`loading ${ctx.settings.products} products`);
  await ingest(ctx, catalogue(ctx.settings.products));
  const variants = settingVariants(process.env.BENCH_COMPARE_ENV);
  if (variants.length === 0) throw new Error('BENCH_ONLY=compare needs BENCH_COMPARE_ENV (e.g. A=HIT_CACHE_CHARS=0)');
  const rounds = numberSetting('BENCH_ROUNDS', 4);
  const { queries, out } = ctx.settings;
  const sets: { name: string; api: Api; services?: RunningServices }[] = [{ name: 'as configured', api: ctx.api }];
  const results: ReturnType<typeof figures>[] = [];
  try {
    for (const [k, v] of variants.entries()) {
      const set = await ctx.stack.startServiceSet(`compare-${k}`, { ...tracingOn(receiver), ...v.env });
      sets.push({ name: v.name, api: ctx.api.at(set.gatewayUrls), services: set.services });
    }
    const kinds = {
      'a different anchor per query': anchorSets(ctx, queries, 1, 11),
      'the same anchor every query': Array.from({ length: queries }, () => anchorSets(ctx, 1, 1, 12)[0]!),
    };
    const order = [...sets.map((s) => s.name), 'raw'];
    for (const [kind, anchors] of Object.entries(kinds)) {
      const cases = await Promise.all(anchors.map((a) => similarCase(ctx, a, 'description')));
      const call = (name: string, i: number) =>
        name === 'raw'
          ? cases[i]!.raw()
          : sets.find((s) => s.name === name)!.api.post('/search/similar', cases[i]!.body);
      // Each gateway warmed up (its anchors and hits read ahead, the JIT) before anything counts.
      for (const name of order) for (let i = 0; i < Math.min(200, queries); i++) await call(name, i);
      const all: Record<string, number[]> = Object.fromEntries(order.map((n) => [n, []]));
      for (let round = 1; round <= rounds; round++) {
        const times: Record<string, number[]> = Object.fromEntries(order.map((n) => [n, []]));
        for (let i = 0; i < queries; i++) {
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
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'compare.json'), JSON.stringify({ variants, rounds, results }, null, 2));
  }
}

/** One round's (0: all rounds') p50 and p99 of each side, logged against raw kNN. */
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
