import type { RunningServices } from '@kb/devstack';
import type { Ctx } from './context';
import { mergesSettled } from './es-stats';
import type { Api } from './http';
import { closedLoop, median, pairedCost } from './load';
import { log } from './log';
import type { Report } from './report';
import { anchorSets, similarCase } from './similar-rows';
import type { SpanReceiver } from './spans';
import { cpuMs } from './stack';
import { tracingOn } from './tracing';

/**
 * Rounds of the tracing-cost comparison (each runs every mode for a slice, in alternating order,
 * after one warm-up round). Short slices, many rounds: neighbouring slices see the same machine.
 */
const TRACING_ROUNDS = 10;
const TRACING_SLICE_SECONDS = 3;
const TRACING_WARM_UP_SECONDS = 12;

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
export async function tracingCost(
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
    on: { env: tracingOn(receiver) },
    always: { env: { ...tracingOn(receiver), OTEL_TRACES_SAMPLER: 'parentbased_always_on' } },
  };
  // A set is `a+b` (those instrumentations; `none`: the SDK alone), optionally followed by
  // `;NAME=value` settings (e.g. `http+mongodb;LOG_LEVEL=debug`); nothing before `;` keeps the default.
  for (const set of sets) {
    const [instrumentations, ...settings] = set.split(';');
    modes[set] = {
      env: {
        ...tracingOn(receiver),
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
      running[mode] = { api: ctx.api.at(set.gatewayUrls), services: set.services };
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
