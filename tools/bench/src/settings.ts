/** The benchmark's settings from the environment (documented in main.ts). */
import { resolve } from 'node:path';
import { checkoutDir } from '@kb/devstack';

/** The modes BENCH_ONLY picks; unset: the whole benchmark. */
export const MODES = ['ingest', 'tracing', 'search', 'compare', 'replicas', 'scale'] as const;
export type ModeName = (typeof MODES)[number];

export interface BenchSettings {
  only: ModeName | undefined;
  products: number;
  entries: number;
  queries: number;
  /** Per throughput figure. */
  seconds: number;
  /** More catalogue sizes for the scaling table. */
  scale: number[];
  /** Where the results are written. */
  out: string;
  /** BENCH_REPLICAS: processes of each service; more than one count only for BENCH_ONLY=replicas. */
  replicas: number[];
}

/** A numeric setting, else its default. */
export const numberSetting = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

export function readSettings(): BenchSettings {
  const replicas = replicaCounts(process.env.BENCH_REPLICAS);
  // A list of replica counts (BENCH_REPLICAS=1,2) is the replicas comparison's, BENCH_ONLY or not.
  const only = process.env.BENCH_ONLY || (replicas.length > 1 ? 'replicas' : undefined);
  if (only !== undefined && !(MODES as readonly string[]).includes(only))
    throw new Error(`BENCH_ONLY: "ingest", "tracing", "search", "compare", "replicas" or "scale", not ${only}`);
  if (replicas.length > 1 && only !== 'replicas')
    throw new Error(`BENCH_REPLICAS=${process.env.BENCH_REPLICAS}: a list of counts only with BENCH_ONLY=replicas`);
  return {
    only: only as ModeName | undefined,
    products: numberSetting('BENCH_PRODUCTS', ['ingest', 'compare', 'replicas'].includes(only ?? '') ? 2000 : 5000),
    entries: numberSetting('BENCH_ENTRIES', 500),
    queries: numberSetting('BENCH_QUERIES', 300),
    seconds: numberSetting('BENCH_SECONDS', 8),
    scale: (process.env.BENCH_SCALE ?? '1000,10000').split(',').filter(Boolean).map(Number),
    out: resolve(checkoutDir(), process.env.BENCH_OUT ?? 'bench-results'),
    // BENCH_ONLY=replicas without a list: 1, then 2.
    replicas: only === 'replicas' && !process.env.BENCH_REPLICAS ? [1, 2] : replicas,
  };
}

/** `A=X=1,Y=2;B=X=3`: named sets of service settings (BENCH_INGEST_ENV, BENCH_COMPARE_ENV). */
export function settingVariants(spec: string | undefined): { name: string; env: Record<string, string> }[] {
  return (spec ?? '')
    .split(';')
    .filter(Boolean)
    .map((v) => {
      const [name, ...settings] = v.split('=');
      const pairs = settings.join('=').split(',').filter(Boolean);
      return {
        name: name!,
        env: Object.fromEntries(pairs.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
      };
    });
}

/** BENCH_REPLICAS as a list of counts, each a whole number from 1 to 8 (unset: [1]). */
export function replicaCounts(wanted: string | undefined): number[] {
  const items = (wanted || '1').split(',').map((x) => x.trim());
  return items.map((item) => {
    const n = Number(item);
    if (!item || !Number.isInteger(n) || n < 1 || n > 8)
      throw new Error(`BENCH_REPLICAS: whole numbers from 1 to 8, comma-separated, not ${wanted}`);
    return n;
  });
}
