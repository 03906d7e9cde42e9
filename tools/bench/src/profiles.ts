/**
 * Reads V8 CPU profiles (`node --cpu-prof`) and sums self time by function and by where the code
 * lives (a package, the service's own code, Node's internals, GC, idle), for the report.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  file: string;
  busyMs: number;
  idleMs: number;
  byPlace: { place: string; ms: number; share: number }[];
  byFunction: { fn: string; ms: number; share: number }[];
}

/** Where a frame's code lives: a package name, `@kb/<service>`, node internals, or a V8 pseudo-frame. */
function place(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const own = /services\/([^/]+)\//.exec(url);
  if (own) return `@kb/${own[1]}`;
  if (url.startsWith('node:')) return 'node internals';
  return url;
}

export function summarise(file: string, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  const places = new Map<string, number>();
  const fns = new Map<string, number>();
  let idle = 0;
  for (const [id, ms] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') {
      idle += ms;
      continue;
    }
    const where = place(url, functionName);
    places.set(where, (places.get(where) ?? 0) + ms);
    const key = `${functionName || '(anonymous)'} ${where}${url ? `:${lineNumber + 1}` : ''}`;
    fns.set(key, (fns.get(key) ?? 0) + ms);
  }
  const busy = [...places.values()].reduce((a, b) => a + b, 0);
  const rows = <K extends string>(m: Map<string, number>, key: K) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, ms]) => ({ [key]: k, ms, share: ms / busy }) as { [P in K]: string } & { ms: number; share: number });
  return { file, busyMs: busy, idleMs: idle, byPlace: rows(places, 'place'), byFunction: rows(fns, 'fn') };
}

/** The newest profile of each service in `dir` (their file names start with the process title's pid). */
export function summariseDir(dir: string, pids: Record<string, number>): Record<string, ProfileSummary> {
  const out: Record<string, ProfileSummary> = {};
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  for (const [name, pid] of Object.entries(pids)) {
    const file = files.find((f) => f.includes(`.${pid}.`));
    if (file) out[name] = summarise(join(dir, file));
  }
  return out;
}
