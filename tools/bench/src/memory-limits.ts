/**
 * BENCH_MEMORY_LIMITS=chart: every service process runs inside a memory cgroup of the limit the
 * Helm chart gives its pod (charts/knowledge-service/values.yaml), as the kubelet would run it,
 * with the chart's extra environment (its NODE_OPTIONS), and the report says whether the chart's
 * limits hold under the benchmark's load: each service's peak charged memory against its limit,
 * and the OOM kills. Node sizes V8's heap from the limit it runs under
 * (`process.constrainedMemory()`), so the peaks of an unconstrained run (VmHWM, with a heap limit
 * of a quarter of the machine's memory) say little about what a pod needs.
 *
 * Needs root and a writable memory controller: cgroup v1 (`/sys/fs/cgroup/memory`) or v2.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { ServiceName } from '@kb/devstack';

const V1_ROOT = '/sys/fs/cgroup/memory';
const V2_ROOT = '/sys/fs/cgroup';

const UNITS: Record<string, number> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
};

/** A Kubernetes memory quantity (`256Mi`, `1Gi`, `500M`, `1073741824`) in bytes. */
export function memoryQuantity(text: string | number): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|k|M|G)?$/.exec(String(text).trim());
  if (!m) throw new Error(`not a memory quantity this reads: ${String(text)}`);
  return Math.round(Number(m[1]) * UNITS[m[2] ?? '']!);
}

type PodValues = { resources?: { limits?: { memory?: string } }; env?: Record<string, unknown> };
type Values = { default?: PodValues; components?: Record<string, PodValues | undefined> };

/** What the chart gives one service's pod that the benchmark reproduces: the memory limit and the extra environment. */
export interface PodSettings {
  limitBytes: number;
  env: Record<string, string>;
}

/** Each service's pod settings as the chart's values give them (components.<name> over default, env key by key). */
export function chartPodSettings(
  valuesYaml: string,
  services: readonly ServiceName[],
): Record<ServiceName, PodSettings> {
  const values = parse(valuesYaml) as Values;
  const settings = {} as Record<ServiceName, PodSettings>;
  for (const service of services) {
    const component = values.components?.[service];
    const memory = component?.resources?.limits?.memory ?? values.default?.resources?.limits?.memory;
    if (memory === undefined) throw new Error(`the chart's values give the ${service} no memory limit`);
    const env = { ...values.default?.env, ...component?.env };
    settings[service] = {
      limitBytes: memoryQuantity(memory),
      env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])),
    };
  }
  return settings;
}

/**
 * How a process is started inside a cgroup: a shell that moves itself into the group, then
 * becomes the process (`exec`: the same pid, so its process group and marker stay as they were).
 */
export function inCgroup(procsFile: string, command: string, args: string[]): { command: string; args: string[] } {
  return { command: '/bin/sh', args: ['-c', 'echo $$ > "$0" && exec "$@"', procsFile, command, ...args] };
}

/** One process's figures, read from its cgroup. */
export interface CgroupFigures {
  service: ServiceName;
  limitBytes: number;
  peakBytes: number;
  oomKills: number;
}

interface Group {
  service: ServiceName;
  dir: string;
  limitBytes: number;
}

/** The memory cgroups of one run: one per service process launched. */
export class MemoryCgroups {
  private readonly groups: Group[] = [];
  private next = 0;

  private constructor(
    readonly version: 'v1' | 'v2',
    private readonly root: string,
    readonly pods: Record<ServiceName, PodSettings>,
  ) {}

  /** The machine's memory controller, or an error that says why it cannot be used. */
  static open(pods: Record<ServiceName, PodSettings>): MemoryCgroups {
    if (existsSync(join(V1_ROOT, 'memory.limit_in_bytes'))) return new MemoryCgroups('v1', V1_ROOT, pods).tidy();
    const controllers = existsSync(join(V2_ROOT, 'cgroup.controllers'))
      ? readFileSync(join(V2_ROOT, 'cgroup.controllers'), 'utf8')
      : '';
    if (!controllers.split(/\s+/).includes('memory'))
      throw new Error('BENCH_MEMORY_LIMITS: no memory cgroup controller here (cgroup v1 or v2)');
    // Children of the root get the memory controller only when the root hands it down.
    writeFileSync(join(V2_ROOT, 'cgroup.subtree_control'), '+memory');
    return new MemoryCgroups('v2', V2_ROOT, pods).tidy();
  }

  /** Removes the empty groups an earlier run left when it was killed before its stop. */
  private tidy(): this {
    for (const name of leftoverGroups(readdirSync(this.root), (pid) => existsSync(`/proc/${pid}`)))
      try {
        rmdirSync(join(this.root, name));
      } catch {
        // a process still in it: left alone
      }
    return this;
  }

  /** A new group for one process of `service`, sized as the chart's limit: how to start the process in it, with the chart's env. */
  launcher = (service: ServiceName, command: string, args: string[]) => {
    const dir = join(this.root, `kb-bench-${process.pid}-${service}-${this.next++}`);
    mkdirSync(dir);
    const { limitBytes, env } = this.pods[service];
    writeFileSync(join(dir, this.version === 'v1' ? 'memory.limit_in_bytes' : 'memory.max'), String(limitBytes));
    this.groups.push({ service, dir, limitBytes });
    return { ...inCgroup(join(dir, 'cgroup.procs'), command, args), env };
  };

  /** Every process's figures so far (a group whose process has ended keeps its peak and kills). */
  figures(): CgroupFigures[] {
    return this.groups.map(({ service, dir, limitBytes }) => {
      const read = (file: string) => readFileSync(join(dir, file), 'utf8');
      const events = read(this.version === 'v1' ? 'memory.oom_control' : 'memory.events');
      const peak = this.version === 'v1' ? 'memory.max_usage_in_bytes' : 'memory.peak'; // v2: kernel 5.19 on
      return {
        service,
        limitBytes,
        peakBytes: existsSync(join(dir, peak)) ? Number(read(peak)) : Number.NaN,
        oomKills: Number(/^oom_kill (\d+)$/m.exec(events)?.[1] ?? 0),
      };
    });
  }

  /** Per service (perService) and the cgroup version, for the report. */
  summary(): { cgroup: string; rows: ServiceMemory[] } {
    return { cgroup: this.version, rows: perService(this.figures()) };
  }

  /** Removes the groups whose processes have ended (those still running are left, and named). */
  remove(): string[] {
    const left: string[] = [];
    for (const g of this.groups.splice(0)) {
      try {
        rmdirSync(g.dir);
      } catch {
        left.push(g.dir);
      }
    }
    return left;
  }
}

/** The groups of earlier runs (`kb-bench-<pid>-…`) whose benchmark process is gone. */
export function leftoverGroups(names: string[], alive: (pid: number) => boolean): string[] {
  return names.filter((n) => {
    const pid = /^kb-bench-(\d+)-/.exec(n)?.[1];
    return pid !== undefined && Number(pid) !== process.pid && !alive(Number(pid));
  });
}

/** One service's row: its limit, the highest peak of any of its processes, the OOM kills of all of them. */
export interface ServiceMemory {
  service: ServiceName;
  limitMiB: number;
  peakMiB: number;
  processes: number;
  oomKills: number;
}

export function perService(figures: CgroupFigures[]): ServiceMemory[] {
  const rows = new Map<ServiceName, ServiceMemory>();
  for (const f of figures) {
    const row = rows.get(f.service) ?? {
      service: f.service,
      limitMiB: f.limitBytes / 2 ** 20,
      peakMiB: 0,
      processes: 0,
      oomKills: 0,
    };
    row.peakMiB = Math.max(row.peakMiB, f.peakBytes / 2 ** 20);
    row.processes++;
    row.oomKills += f.oomKills;
    rows.set(f.service, row);
  }
  return [...rows.values()];
}
