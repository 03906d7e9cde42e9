/**
 * A run of the modes that share one stack: the span receiver, the backends, the services with
 * tracing exported to the benchmark, an admin's client and the shop; the report written at the end.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { BULK } from './api-writes';
import { openContext, type Ctx } from './context';
import { log } from './log';
import { markdown, writeReport, type Report } from './report';
import type { BenchSettings } from './settings';
import { SpanReceiver } from './spans';
import { startBenchStack } from './stack';
import { tracingOn } from './tracing';

export interface Session {
  ctx: Ctx;
  report: Report;
  receiver: SpanReceiver;
  /** BENCH_PROFILE=1: the services' Node arguments for a CPU profile. */
  nodeArgs: (() => string[]) | undefined;
}

export interface SessionMode {
  run(session: Session): Promise<void>;
  /** Writes latest.json and latest.md at the end (compare writes compare.json alone). */
  writesReport: boolean;
  /** Prints the report's tables once the stack is stopped. */
  printsReport: boolean;
}

export async function runSession(settings: BenchSettings, mode: SessionMode): Promise<void> {
  const began = performance.now();
  const report: Report = {
    startedAt: new Date().toISOString(),
    machine: { cpus: availableParallelism(), node: process.version },
    settings: {
      products: settings.products,
      entries: settings.entries,
      queries: settings.queries,
      seconds: settings.seconds,
      scale: settings.scale,
      bulk: BULK,
    },
    ingest: {},
    rows: [],
    memoryMiB: {},
    tiers: [],
  };
  const receiver = await SpanReceiver.start();
  const stack = await startBenchStack(log);
  report.machine.servicesNode = stack.serviceNodeVersion;
  if (stack.replicas > 1) report.settings.replicas = stack.replicas;
  const profileDir = join(settings.out, 'profiles');
  const nodeArgs = process.env.BENCH_PROFILE === '1' ? () => ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : undefined;
  let ctx: Ctx | undefined;
  try {
    log('starting the services (tracing on, exported to the benchmark)');
    await stack.startServices(tracingOn(receiver));
    ctx = await openContext(stack, settings);
    await mode.run({ ctx, report, receiver, nodeArgs });
  } finally {
    report.seconds = (performance.now() - began) / 1000;
    if (stack.memoryLimits) report.memoryLimits = stack.memoryLimits.summary();
    if (mode.writesReport) writeReport(report, settings.out);
    await ctx?.api.close();
    await stack.stop();
    await receiver.close();
  }
  if (mode.printsReport) process.stdout.write(`\n${markdown(report)}\n`);
}
