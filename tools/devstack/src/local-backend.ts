import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { checkoutKey, mkdirShared } from './cache';
import type { Log } from './log';
import { logTail, startProcess, waitUntil, type ProcessSpec, type RunningProcess } from './process-group';
import type { RunTracker } from './state';
import type { Supervised } from './supervisor';

/** Options shared by the backends run as local processes. */
export interface LocalProcessOptions {
  /** true: data kept under the cache between runs (`npm start`); false: a fresh folder removed on stop. */
  persistent: boolean;
  /** Overrides where the data lives (kept on stop). */
  dataDir?: string;
  log: Log;
  tracker?: RunTracker;
  startTimeoutMs?: number;
}

export interface LocalBackend {
  url: string;
  stop(): Promise<void>;
  /** The process as `npm start` supervises it: restarted on the same port with the same data. */
  supervised: Supervised;
}

/**
 * The backend's folder: the given one, a persistent one per checkout under `base`, or a fresh
 * temporary one (recorded with the tracker so a later run removes it if this one dies).
 */
export function backendDir(name: string, base: string, opts: LocalProcessOptions): { dir: string; temporary: boolean } {
  const temporary = !opts.dataDir && !opts.persistent;
  let dir: string;
  if (opts.dataDir) dir = opts.dataDir;
  else if (opts.persistent) dir = join(base, 'data', checkoutKey(), name);
  else dir = mkdtempSync(join(mkdirShared(join(base, 'tmp')), `${name}-`));
  if (temporary) opts.tracker?.addTempDir(dir);
  mkdirShared(dir);
  return { dir, temporary };
}

/**
 * Starts the process, records it with the tracker and waits until `ready` says so. If it dies
 * or is not ready in time it is stopped, its temporary folder removed, and the error carries
 * the tail of its output. Returns how to stop it (and remove the temporary folder) and how to
 * start it again the same way (a supervised restart: same spec, so same port and data).
 */
export async function startUntilReady(args: {
  what: string;
  spec: ProcessSpec;
  dir: string;
  temporary: boolean;
  opts: LocalProcessOptions;
  /** `since`: where this run's output starts in the log file (a restart appends to it). */
  ready: (proc: RunningProcess, since: number) => boolean | Promise<boolean>;
  timeoutMs: number;
  pollMs?: number;
}): Promise<{ stop(): Promise<void>; supervised: Supervised }> {
  const { what, spec, dir, temporary, opts } = args;
  const removeTemporary = () => {
    if (temporary) rmSync(dir, { recursive: true, force: true });
  };
  const launch = async (append: boolean): Promise<RunningProcess> => {
    const since = append ? fileSize(spec.logFile) : 0;
    const proc = await startProcess({ ...spec, append });
    opts.tracker?.addProcess({ name: proc.name, pgid: proc.pgid, marker: spec.marker });
    const timeoutMs = opts.startTimeoutMs ?? args.timeoutMs;
    const ready = await waitUntil(
      async () => proc.exitReason() !== undefined || (await args.ready(proc, since)),
      timeoutMs,
      args.pollMs,
    );
    if (!ready || proc.exitReason()) {
      const why = proc.exitReason()
        ? `${proc.exitReason()} before it was ready`
        : `was not ready within ${timeoutMs / 1000} s`;
      const tail = logTail(proc.logFile);
      await proc.stop();
      throw new Error(`${what} ${why}. Last lines of its output (${proc.logFile}):\n${tail}`);
    }
    return proc;
  };
  let proc = await launch(false).catch((err: unknown) => {
    removeTemporary();
    throw err;
  });
  return {
    stop: async () => {
      await proc.stop();
      removeTemporary();
    },
    supervised: {
      name: what,
      current: () => proc,
      restart: async () => (proc = await launch(true)),
    },
  };
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
