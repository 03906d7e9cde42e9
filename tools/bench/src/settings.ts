/** The benchmark's settings from the environment (documented in main.ts). */
import { resolve } from 'node:path';
import { checkoutDir } from '@kb/devstack';

/** The modes BENCH_ONLY picks; unset: the whole benchmark. */
export const MODES = ['ingest', 'tracing', 'search', 'compare'] as const;
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
}

/** A numeric setting, else its default. */
export const numberSetting = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

export function readSettings(): BenchSettings {
  const only = process.env.BENCH_ONLY;
  if (only !== undefined && !(MODES as readonly string[]).includes(only))
    throw new Error(`BENCH_ONLY: "ingest", "tracing", "search" or "compare", not ${only}`);
  return {
    only: only as ModeName | undefined,
    products: numberSetting('BENCH_PRODUCTS', only === 'ingest' || only === 'compare' ? 2000 : 5000),
    entries: numberSetting('BENCH_ENTRIES', 500),
    queries: numberSetting('BENCH_QUERIES', 300),
    seconds: numberSetting('BENCH_SECONDS', 8),
    scale: (process.env.BENCH_SCALE ?? '1000,10000').split(',').filter(Boolean).map(Number),
    out: resolve(checkoutDir(), process.env.BENCH_OUT ?? 'bench-results'),
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
