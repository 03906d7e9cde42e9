/** Latency and throughput loops for the benchmark: sequential pairs and closed loops of N clients. */

export interface LatencyFigures {
  count: number;
  p50: number;
  /** Absent in reports written before it was recorded. */
  p95?: number;
  p99: number;
  mean: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** The middle value (the mean of the two middle ones for an even count); 0 for none. */
export function median(xs: number[]): number {
  if (xs.length === 0) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * What a mode costs against `off`, from rounds in which every mode ran once: the median over the
 * rounds of 1 − its throughput / off's in the same round.
 */
export function pairedCost(runs: Record<string, number[]>, mode: string): number {
  const off = runs['off'] ?? [];
  return 1 - median((runs[mode] ?? []).map((x, round) => x / (off[round] ?? NaN)));
}

export function latencyFigures(ms: number[]): LatencyFigures {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    count: ms.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    mean: ms.reduce((a, b) => a + b, 0) / Math.max(1, ms.length),
  };
}

export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

/**
 * `count` rounds, one at a time; in each round every function runs once, in turn, so the
 * through-the-service call and its raw twin see the same machine state.
 */
export async function pairedRounds<K extends string>(
  count: number,
  fns: Record<K, (i: number) => Promise<unknown>>,
): Promise<Record<K, number[]>> {
  const out = Object.fromEntries(Object.keys(fns).map((k) => [k, [] as number[]])) as Record<K, number[]>;
  for (let i = 0; i < count; i++) {
    for (const key of Object.keys(fns) as K[]) out[key].push((await timed(() => fns[key](i))).ms);
  }
  return out;
}

export interface ThroughputFigures extends LatencyFigures {
  clients: number;
  seconds: number;
  perSecond: number;
  errors: number;
}

/** `clients` loops calling `fn` back to back for `seconds` (after a short warm-up); counts what completes. */
export async function closedLoop(
  clients: number,
  seconds: number,
  fn: (i: number) => Promise<unknown>,
): Promise<ThroughputFigures> {
  const warmUpUntil = performance.now() + 500;
  while (performance.now() < warmUpUntil)
    await Promise.all(Array.from({ length: clients }, (_, c) => fn(c).catch(() => undefined)));
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const i = next++;
        const t0 = performance.now();
        try {
          await fn(i);
          latencies.push(performance.now() - t0);
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  return { ...latencyFigures(latencies), clients, seconds: elapsed, perSecond: latencies.length / elapsed, errors };
}
