/** What the processes of a run used: CPU so far, per request, and peak memory. */
import type { Ctx } from './context';
import type { Report } from './report';
import { backendGroups, cpuMs, peakMemoryMiB } from './stack';

/** CPU ms of each process (the services, MongoDB, Elasticsearch, this benchmark) so far. */
export function cpuOf(ctx: Ctx): Record<string, number> {
  const out: Record<string, number> = { benchmark: process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000 };
  for (const child of ctx.stack.services?.children ?? []) out[child.name] = cpuMs(child.pgid);
  for (const [name, pgid] of Object.entries(backendGroups(ctx.stack.backends)))
    if (!(name in out)) out[name] = cpuMs(pgid);
  return out;
}

/** Each process's CPU ms between two cpuOf readings, per request. */
export const perRequest = (a: Record<string, number>, b: Record<string, number>, count: number) =>
  Object.fromEntries(Object.keys(b).map((k) => [k, (b[k]! - (a[k] ?? 0)) / Math.max(1, count)]));

/** Peak memory so far: each process's VmHWM, and under BENCH_MEMORY_LIMITS each service's cgroup figures. */
export function recordPeakMemory(ctx: Ctx, report: Report): void {
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
