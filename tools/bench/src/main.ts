/**
 * `npm run bench`: the whole stack against raw Elasticsearch, every figure from one run. See
 * docs/benchmark.md. Settings (environment): BENCH_PRODUCTS (5000), BENCH_ENTRIES (500),
 * BENCH_QUERIES (300), BENCH_SECONDS (8, per throughput figure), BENCH_SCALE (1000,10000: more
 * catalogue sizes for the scaling table; 50000 works too, and takes long), BENCH_OUT
 * (bench-results), BENCH_PROFILE=1 (a CPU profile of each service, written beside the results),
 * BENCH_MEMORY_LIMITS=chart (each service process in a memory cgroup of the chart's limit; root only).
 *
 * BENCH_ONLY=ingest measures the cold ingest alone (see modes/ingest.ts): BENCH_PRODUCTS (default
 * 2000 there) fresh products per round, BENCH_ROUNDS rounds (1), BENCH_INGEST_ENV to compare
 * service settings in alternating rounds, BENCH_PROFILE=1 for CPU profiles of the services,
 * then BENCH_SINGLE (400) more one upsert each, BENCH_SINGLE_IN_FLIGHT (8) at a time.
 * BENCH_ONLY=tracing: only the tracing-cost comparison (BENCH_TRACING_SETS adds instrumentation
 * sets, BENCH_TRACING_NODE another Node binary for the services).
 * BENCH_ONLY=search: the catalogue and entries loaded, then only similar search (one anchor),
 * product search and entry search against their raw queries (a few minutes).
 * BENCH_ONLY=compare: service settings side by side (see modes/compare.ts): BENCH_COMPARE_ENV
 * (`A=X=1,Y=2;B=X=3`), BENCH_PRODUCTS (default 2000 there), BENCH_ROUNDS (4).
 * BENCH_REPLICAS (1): processes of each service, the benchmark's calls round robin over their
 * gateways. BENCH_ONLY=replicas, or BENCH_REPLICAS as a list (`1,2`, the default there): the cold
 * ingest and search with each count in turn, one table (see modes/replicas.ts; BENCH_PRODUCTS
 * 2000 there).
 * BENCH_ONLY=scale: tens of thousands of entries and hundreds of thousands of products with a
 * stand-in embedder (see modes/scale.ts; BENCH_SCALE_ENTRIES, BENCH_SCALE_PRODUCTS, BENCH_SCALE_INGEST).
 */
import { compareMode } from './modes/compare';
import { fullMode } from './modes/full';
import { ingestMode } from './modes/ingest';
import { replicasMode } from './modes/replicas';
import { scaleMode } from './modes/scale';
import { searchMode } from './modes/search';
import { tracingMode } from './modes/tracing';
import { runSession } from './session';
import { readSettings, type BenchSettings } from './settings';

/** The mode BENCH_ONLY names; every mode but ingest, replicas and scale runs in one session (runSession). */
function runMode(settings: BenchSettings): Promise<void> {
  switch (settings.only) {
    case 'ingest':
      return ingestMode(settings);
    case 'tracing':
      return runSession(settings, tracingMode);
    case 'search':
      return runSession(settings, searchMode);
    case 'compare':
      return runSession(settings, compareMode);
    case 'replicas':
      return replicasMode(settings);
    case 'scale':
      return scaleMode(settings);
    case undefined:
      return runSession(settings, fullMode);
  }
}

runMode(readSettings()).catch((err: unknown) => {
  process.stderr.write(`npm run bench: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
