/**
 * The benchmark's report: what one run measured (JSON) and its tables (markdown). Run alone
 * (`node tools/bench/dist/report.js [dir]`), it writes latest.md again from the
 * latest.json in `dir` (default bench-results), e.g. after a change to the tables.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { median, pairedCost, type LatencyFigures, type ThroughputFigures } from './load';
import type { ServiceMemory } from './memory-limits';
import type { ProfileSummary } from './profiles';

export interface SearchRow {
  what: string;
  service: LatencyFigures;
  raw: LatencyFigures;
  service8?: ThroughputFigures;
  raw8?: ThroughputFigures;
  overlap?: number;
  recall?: number;
}

export interface SimilarRowResult extends SearchRow {
  /** CPU ms per request of each process during the 8-client runs, through the gateway and raw. */
  cpuPerRequest?: { service: Record<string, number>; raw: Record<string, number> };
  /** Raw Elasticsearch's own recall@10 against brute force: what approximate kNN loses by itself. */
  rawRecall?: number;
  service1?: ThroughputFigures;
  raw1?: ThroughputFigures;
}

/** The embedder in the service against a bare session, and what batching does to a vector. */
export interface EmbedderFigures {
  rows: { what: string; batch: number; textsPerSecond: number }[];
  /** Lowest cosine between a text embedded alone and in a batch of 32 (bare session). */
  batchedVsAlone: number;
  /** Lowest cosine between the service's vector and the bare session's, one text per run. */
  serviceVsBareAlone: number;
}

export interface TierResult {
  products: number;
  ingestCold: { products: number; perSecond: number; seconds: number };
  similar: SimilarRowResult[];
  productSearch?: SearchRow;
}

export interface Report {
  startedAt: string;
  machine: {
    cpus: number;
    node: string;
    /** The services' Node, when not the benchmark's. */
    servicesNode?: string;
  };
  /**
   * bulk: products per bulk call (absent in reports written before it was recorded: 250);
   * replicas: processes of each service, the calls round robin over their gateways (absent: 1).
   */
  settings: {
    products: number;
    entries: number;
    queries: number;
    seconds: number;
    scale: number[];
    bulk?: number;
    replicas?: number;
  };
  ingest: {
    cold?: { products: number; perSecond: number; textsPerSecond: number };
    warm?: { products: number; perSecond: number; textsPerSecond: number };
    entries?: { entries: number; perSecond: number };
  };
  rows: SearchRow[];
  embedder?: EmbedderFigures;
  hops?: { total: number; hops: { hop: string; ms: number }[]; spans: number; traces: number };
  tracing?: {
    runs: Record<string, number[]>;
    on: number;
    off: number;
    always: number;
    cost: number;
    alwaysCost: number;
    /** BENCH_TRACING_SETS: each instrumentation set's throughput cost against off. */
    sets?: Record<string, number>;
    /** CPU ms per similar search of the four services, each run of each mode. */
    cpu?: Record<string, number[]>;
    /** BENCH_ONLY=tracing: writes (categories created) per second in each mode, and their CPU ms each. */
    writeRuns?: Record<string, number[]>;
    writeCpu?: Record<string, number[]>;
  };
  profiles?: Record<string, ProfileSummary>;
  memoryMiB: Record<string, number>;
  /** BENCH_MEMORY_LIMITS=chart: per service, the chart's limit, the highest peak in its cgroup, OOM kills. */
  memoryLimits?: { cgroup: string; rows: ServiceMemory[] };
  tiers: TierResult[];
  seconds?: number;
}

const f1 = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '–' : x.toFixed(1));
const f3 = (x: number | undefined) => (x === undefined ? '–' : x.toFixed(3));
const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined ? '–' : `${(a / b).toFixed(2)}×`;

/** The header's words for BENCH_REPLICAS above 1 (one replica: none, as before it was a setting). */
const replicasOf = (n: number | undefined) =>
  n && n > 1 ? `, ${n} replicas of each service (the calls round robin over the ${n} gateways)` : '';

export function markdown(r: Report): string {
  const lines: string[] = [];
  lines.push(
    `Benchmark of ${r.startedAt} (${r.machine.cpus} cores, Node ${r.machine.node}${servicesOn(r.machine)}): ${r.settings.products} ` +
      `products, ${r.settings.entries} entries, ${r.settings.queries} queries per latency ` +
      `figure, ${r.settings.seconds} s per throughput figure${replicasOf(r.settings.replicas)}; took ${f1((r.seconds ?? 0) / 60)} min.`,
  );
  lines.push('');
  lines.push(
    '| what | gateway p50 / p99 ms | raw ES p50 / p99 ms | p50 ratio | p99 ratio | 1 client req/s ' +
      '(gw / raw) | 8 clients req/s (gw / raw) | 8-client ratio | top-10 overlap | recall@10 gw (raw) |',
  );
  lines.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const row of r.rows as SimilarRowResult[]) {
    lines.push(
      `| ${row.what} | ${f1(row.service.p50)} / ${f1(row.service.p99)} | ${f1(row.raw.p50)} / ${f1(row.raw.p99)} ` +
        `| ${ratio(row.service.p50, row.raw.p50)} | ${ratio(row.service.p99, row.raw.p99)} ` +
        `| ${row.service1 ? `${f1(row.service1.perSecond)} / ${f1(row.raw1?.perSecond)}` : '–'} ` +
        `| ${row.service8 ? `${f1(row.service8.perSecond)} / ${f1(row.raw8?.perSecond)}` : '–'} ` +
        `| ${row.service8 ? ratio(row.service8.perSecond, row.raw8?.perSecond) : '–'} ` +
        `| ${f3(row.overlap)} | ${f3(row.recall)}${row.rawRecall === undefined ? '' : ` (${f3(row.rawRecall)})`} |`,
    );
  }
  lines.push('');
  const { cold, warm, entries: e } = r.ingest;
  lines.push('| ingest | products/s | texts/s |');
  lines.push('|---|---|---|');
  if (cold)
    lines.push(
      `| products, cold embedding cache (bulks of ${r.settings.bulk ?? 250}, 2 in ` +
        `flight, until indexed) | ${f1(cold.perSecond)} | ${f1(cold.textsPerSecond)} |`,
    );
  if (warm)
    lines.push(
      `| products, warm embedding cache (same texts, new price) | ${f1(warm.perSecond)} | ${f1(warm.textsPerSecond)} |`,
    );
  if (e)
    lines.push(`| knowledge entries (one POST each, 4 in flight, until indexed) | ${f1(e.perSecond)} entries/s | |`);
  if (r.embedder) {
    lines.push('');
    lines.push('| embedder | batch | texts/s |');
    lines.push('|---|---|---|');
    for (const row of r.embedder.rows) lines.push(`| ${row.what} | ${row.batch} | ${f1(row.textsPerSecond)} |`);
    lines.push(
      `| lowest cosine, a text alone against in a batch of 32 (bare session) | | ${r.embedder.batchedVsAlone.toFixed(6)} |`,
    );
    lines.push(
      `| lowest cosine, the service's vector against the bare session's alone | | ${r.embedder.serviceVsBareAlone.toFixed(6)} |`,
    );
  }
  if (cold && r.embedder) {
    const bare1 = r.embedder.rows.find((x) => x.what.startsWith('bare') && x.batch === 1)!.textsPerSecond;
    lines.push('');
    lines.push(
      `Ingest against the bare session at batch 1 (the service's batching): ` +
        `${f3(cold.textsPerSecond / bare1)} cold, ${f3((warm?.textsPerSecond ?? 0) / bare1)} warm.`,
    );
  }
  if (r.hops) {
    lines.push('');
    lines.push(
      `Similar search (one anchor, description), ${r.hops.traces} requests traced one after another: ` +
        `median ${f1(r.hops.total)} ms end to end at the gateway, ${r.hops.spans} spans each. Per ` +
        `hop, the median of each span's self time (its duration less its children's), summed by hop; a ` +
        `gRPC hop is the client span less the server's (wire, framing, (de)serialisation, queueing):`,
    );
    lines.push('');
    lines.push('| hop | median ms |');
    lines.push('|---|---|');
    for (const h of r.hops.hops) lines.push(`| ${h.hop} | ${h.ms.toFixed(2)} |`);
  }
  if (r.tracing) {
    const t = r.tracing;
    // Each mode's figure is its median over the rounds (the modes ran side by side, a slice each per round).
    lines.push('');
    lines.push(
      `| tracing (similar search, 8 clients, a set of services per mode side by side, median of ` +
        `${t.runs['off']?.length ?? 0} rounds) | req/s | throughput cost against off |`,
    );
    lines.push('|---|---|---|');
    lines.push(`| off (OTEL_SDK_DISABLED=true) | ${f1(t.off)} | |`);
    lines.push(
      `| on, default sampling (parent-based, 10% of new traces), exported | ${f1(t.on)} | ${(t.cost * 100).toFixed(1)}% |`,
    );
    lines.push(`| on, every request traced and exported | ${f1(t.always)} | ${(t.alwaysCost * 100).toFixed(1)}% |`);
    for (const [set, cost] of Object.entries(t.sets ?? {}))
      lines.push(
        `| on, default sampling, only \`${set}\` | ${f1(median(t.runs[set] ?? []))} | ${(cost * 100).toFixed(1)}% |`,
      );
    const perMode = (
      what: string,
      unit: string,
      runs: Record<string, number[]>,
      cpu: Record<string, number[]> = {},
    ) => {
      const offCpu = median(cpu['off'] ?? []);
      lines.push(
        '',
        `| ${what}, 8 clients (medians over rounds) | ${unit} | cost against off | services' CPU ms per request | CPU against off |`,
      );
      lines.push('|---|---|---|---|---|');
      for (const [mode, xs] of Object.entries(runs)) {
        const c = median(cpu[mode] ?? []);
        const pct = (x: number) => (mode === 'off' ? '' : `${(x * 100).toFixed(1)}%`);
        lines.push(
          `| ${mode} | ${f1(median(xs))} | ${pct(pairedCost(runs, mode))} | ${c.toFixed(2)} | ${pct(c / offCpu - 1)} |`,
        );
      }
    };
    if (t.cpu) perMode('similar search', 'req/s', t.runs, t.cpu);
    if (t.writeRuns) perMode('category create', 'writes/s', t.writeRuns, t.writeCpu);
  }
  const cpu = (r.rows as SimilarRowResult[]).find((x) => x.cpuPerRequest)?.cpuPerRequest;
  if (cpu) {
    lines.push('');
    lines.push('| CPU ms per similar search, 8 clients | ' + Object.keys(cpu.service).join(' | ') + ' | total |');
    lines.push(
      '|---|' +
        Object.keys(cpu.service)
          .map(() => '---|')
          .join('') +
        '---|',
    );
    const sum = (x: Record<string, number>) => Object.values(x).reduce((a, b) => a + b, 0);
    lines.push(
      `| through the gateway | ${Object.values(cpu.service)
        .map((v) => v.toFixed(2))
        .join(' | ')} | ${sum(cpu.service).toFixed(2)} |`,
    );
    lines.push(
      `| raw Elasticsearch | ${Object.keys(cpu.service)
        .map((k) => (cpu.raw[k] ?? 0).toFixed(2))
        .join(' | ')} | ${sum(cpu.raw).toFixed(2)} |`,
    );
  }
  if (r.profiles) {
    lines.push('');
    lines.push('CPU profiles under search load (`node --cpu-prof`, self time by where the code lives, top 6):');
    lines.push('');
    for (const [name, p] of Object.entries(r.profiles)) {
      lines.push(
        `- ${name} (${f1(p.busyMs / 1000)} s busy): ${p.byPlace
          .slice(0, 6)
          .map((x) => `${x.place} ${(x.share * 100).toFixed(0)}%`)
          .join(', ')}`,
      );
    }
  }
  lines.push('');
  lines.push(
    `| peak memory (VmHWM) over the whole run, up to ${Math.max(r.settings.products, ...r.settings.scale)} products | MiB |`,
  );
  lines.push('|---|---|');
  for (const [name, mib] of Object.entries(r.memoryMiB)) lines.push(`| ${name} | ${mib.toFixed(0)} |`);
  if (r.memoryLimits) {
    lines.push('');
    lines.push(
      `| each service in a memory cgroup (${r.memoryLimits.cgroup}) of the chart's limit | limit MiB | ` +
        'highest peak charged MiB | of the limit | processes | OOM kills |',
    );
    lines.push('|---|---|---|---|---|---|');
    for (const x of r.memoryLimits.rows)
      lines.push(
        `| ${x.service} | ${x.limitMiB.toFixed(0)} | ${x.peakMiB.toFixed(0)} | ` +
          `${((100 * x.peakMiB) / x.limitMiB).toFixed(0)}% | ${x.processes} | ${x.oomKills} |`,
      );
  }
  if (r.tiers.length > 1) {
    lines.push('');
    const bare1 = r.embedder?.rows.find((x) => x.what.startsWith('bare') && x.batch === 1)?.textsPerSecond;
    lines.push(
      '| products | ingest of the tier: products/s cold (time) | its texts/s against the bare session | similar ' +
        'p50 gw / raw ms: 1 anchor | 3 anchors | 10 anchors | hybrid 1 anchor | similar 8 clients req/s gw / raw |',
    );
    lines.push('|---|---|---|---|---|---|---|---|');
    for (const t of r.tiers) {
      const s = (what: string) => t.similar.find((x) => x.what === what);
      const cell = (what: string) => {
        const x = s(what);
        return x ? `${f1(x.service.p50)} / ${f1(x.raw.p50)}` : '–';
      };
      const one = s('similar description, 1 anchor');
      lines.push(
        `| ${t.products} | ${f1(t.ingestCold.perSecond)} (${t.ingestCold.products} in ${f1(t.ingestCold.seconds)} s) ` +
          `| ${bare1 ? `${f3((t.ingestCold.perSecond * 3) / bare1)}×` : '–'} ` +
          `| ${cell('similar description, 1 anchor')} | ${cell('similar description, 3 anchors')} ` +
          `| ${cell('similar description, 10 anchors')} | ${cell('similar hybrid, 1 anchor')} ` +
          `| ${one?.service8 ? `${f1(one.service8.perSecond)} / ${f1(one.raw8?.perSecond)}` : '–'} |`,
      );
    }
  }
  return lines.join('\n');
}

/** Writes the report as JSON and markdown into `dir` (latest.json, latest.md). */
export function writeReport(r: Report, dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'latest.json'), `${JSON.stringify(r, null, 2)}\n`);
  writeFileSync(join(dir, 'latest.md'), `${markdown(r)}\n`);
}

if (require.main === module) {
  const dir = resolve(process.argv[2] ?? 'bench-results');
  writeReport(JSON.parse(readFileSync(join(dir, 'latest.json'), 'utf8')) as Report, dir);
}

/** `; services on Node …` when the services ran on another Node than the benchmark. */
export function servicesOn(m: { node: string; servicesNode?: string }): string {
  return m.servicesNode && m.servicesNode !== m.node ? `; services on Node ${m.servicesNode}` : '';
}
