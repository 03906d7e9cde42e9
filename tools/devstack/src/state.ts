import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runDir } from './cache';
import type { Log } from './log';
import { groupAlive, procStat, stopGroup } from './process-group';

/** A backend process a run started, recognisable later by the marker on its command line. */
export interface TrackedProcess {
  name: string;
  pgid: number;
  marker: string;
}

/** What a run of the dev stack started, kept on disk so that later runs and the admin CLI can find it. */
export interface RunState {
  /** 'start': the persistent `npm start` stack (one per checkout); 'test': a throw-away stack. */
  kind: 'start' | 'test';
  owner: { pid: number; startTime?: string };
  startedAt: string;
  mode?: 'env' | 'testcontainers' | 'local';
  mongoUri?: string;
  elasticsearchUrl?: string;
  processes: TrackedProcess[];
  /** Throw-away data folders to remove if the run ends without cleaning up. */
  tempDirs: string[];
  /** Free for the caller (e.g. service URLs and a demo token for the admin CLI). */
  extra?: Record<string, unknown>;
}

/** `<cache>/run/<checkout hash>/state.json` for `npm start`; one file per process for test runs. */
export function runStatePath(kind: RunState['kind'], pid = process.pid): string {
  return join(runDir(), kind === 'start' ? 'state.json' : `test-${pid}.json`);
}

export function newRunState(kind: RunState['kind']): RunState {
  return {
    kind,
    owner: { pid: process.pid, startTime: procStat(process.pid)?.startTime },
    startedAt: new Date().toISOString(),
    processes: [],
    tempDirs: [],
  };
}

export function readRunState(file: string): RunState | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as RunState;
  } catch {
    return undefined;
  }
}

/** Written to a temporary name and renamed, so a reader never sees half a file; its owner's only (it may hold a secret). */
export function writeRunState(file: string, state: RunState): void {
  mkdirSync(join(file, '..'), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

/** The state of this checkout's running `npm start`, or undefined when none runs. */
export function readStartState(): RunState | undefined {
  const state = readRunState(runStatePath('start'));
  return state && ownerAlive(state) ? state : undefined;
}

/** The Node process that wrote the state still runs (same pid and same start time). */
export function ownerAlive(state: RunState): boolean {
  const { pid, startTime } = state.owner;
  if (pid === process.pid) return true;
  const stat = procStat(pid);
  if (stat) return stat.state !== 'Z' && (startTime === undefined || stat.startTime === startTime);
  if (existsSync('/proc/self/stat')) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops backends left running by runs of this checkout whose Node process is gone (killed, or
 * crashed past its watchdog), removes their throw-away data and their state files.
 */
export async function reapStale(log: Log): Promise<void> {
  const dir = runDir();
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    const file = join(dir, name);
    const state = readRunState(file);
    if (state && ownerAlive(state)) continue;
    for (const p of state?.processes ?? []) {
      if (!groupAlive(p.pgid, p.marker)) continue;
      log(
        `${p.name} (process group ${p.pgid}) is still running from an earlier run ` +
          `(pid ${state?.owner.pid}) that ended without stopping it; stopping it now.`,
      );
      await stopGroup(p.pgid);
    }
    for (const d of state?.tempDirs ?? []) rmSync(d, { recursive: true, force: true });
    rmSync(file, { force: true });
  }
}

/** How a backend reports what to clean up to the run state, as soon as it exists. */
export interface RunTracker {
  addProcess(p: TrackedProcess): void;
  addTempDir(dir: string): void;
}
