/**
 * BENCH_ONLY=ingest: the cold ingest alone, BENCH_ROUNDS rounds of BENCH_PRODUCTS new products
 * each, with each process's CPU per product. BENCH_INGEST_ENV (`A=X=1,Y=2;B=X=3`) names service
 * settings to compare: the services are restarted with each in turn before a round (rounds
 * alternate between them; the machine is shared, so compare alternating rounds). After each
 * round's bulks, BENCH_SINGLE more products (default 400; 0: none) one upsert each,
 * BENCH_SINGLE_IN_FLIGHT at a time (default 8; ingestSingly). Writes `ingest.json` beside the
 * other results.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ingest, ingestSingly } from '../api-writes';
import { catalogue } from '../catalogue';
import { openContext, type Ctx } from '../context';
import { log } from '../log';
import { textsOf } from '../product-texts';
import { summariseDir, type ProfileSummary } from '../profiles';
import { numberSetting, settingVariants, type BenchSettings } from '../settings';
import { SpanReceiver } from '../spans';
import { startBenchStack } from '../stack';
import { tracingOn } from '../tracing';
import { cpuOf, perRequest } from '../usage';

/** One round of one variant: its bulk ingest and, with BENCH_SINGLE, its one-by-one upserts. */
interface IngestRound {
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
}

export async function ingestMode(settings: BenchSettings): Promise<void> {
  const { products: perRound, out } = settings;
  const rounds = numberSetting('BENCH_ROUNDS', 1);
  const variants = settingVariants(process.env.BENCH_INGEST_ENV);
  if (variants.length === 0) variants.push({ name: 'as configured', env: {} });
  const receiver = await SpanReceiver.start();
  const stack = await startBenchStack(log).catch(async (err: unknown) => {
    await receiver.close(); // else its server keeps this process alive after the error
    throw err;
  });
  const profileDir = join(out, 'profiles');
  const nodeArgs = process.env.BENCH_PROFILE === '1' ? () => ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : undefined;
  const results: IngestRound[] = [];
  let ctx: Ctx | undefined;
  const single = numberSetting('BENCH_SINGLE', 400);
  const inFlight = numberSetting('BENCH_SINGLE_IN_FLIGHT', 8);
  try {
    const products = catalogue((perRound + single) * rounds);
    const singles = products.splice(perRound * rounds);
    for (let round = 0; round < rounds; round++) {
      const variant = variants[round % variants.length]!;
      log(`round ${round + 1}: starting the services (${variant.name})`);
      await stack.startServices({ ...tracingOn(receiver), ...variant.env }, nodeArgs);
      ctx ??= await openContext(stack, settings);
      const batch = products.slice(round * perRound, (round + 1) * perRound);
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
    mkdirSync(out, { recursive: true });
    writeFileSync(
      join(out, 'ingest.json'),
      JSON.stringify(
        { startedAt: new Date().toISOString(), ...(stack.replicas > 1 ? { replicas: stack.replicas } : {}), results },
        null,
        2,
      ),
    );
  }
  const replicas =
    stack.replicas > 1
      ? [`${stack.replicas} replicas of each service, the calls round robin over the ${stack.replicas} gateways`, '']
      : [];
  process.stdout.write(`\n${[...replicas, ...ingestTables(results)].join('\n')}\n`);
}

/** The rounds as markdown tables (bulk, then one by one), then each round's profiles' busiest functions. */
function ingestTables(results: IngestRound[]): string[] {
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
  return lines;
}
