import { spawn } from 'node:child_process';
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, readdirSync } from 'node:fs';

export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** stdout and stderr go here; read back for the error when start-up fails. */
  logFile: string;
  /** A string the caller put on the command line of the main process, to recognise it later. */
  marker: string;
  uid?: number;
  gid?: number;
  /** Append to the log file rather than start it afresh (a restart). */
  append?: boolean;
}

export interface RunningProcess {
  name: string;
  /** The child leads its own process group; its id is the child's pid. */
  pgid: number;
  marker: string;
  logFile: string;
  /** Set once the group leader has ended, e.g. "exited with code 1". */
  exitReason(): string | undefined;
  stop(): Promise<void>;
}

const STOP_GRACE_MS = 8_000;

/**
 * Starts a process in its own process group (so stopping it also ends the JVMs it forks) and a
 * watchdog that ends the group if this Node process dies without stopping it.
 */
export async function startProcess(spec: ProcessSpec): Promise<RunningProcess> {
  const out = openSync(spec.logFile, spec.append ? 'a' : 'w');
  const child = spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    detached: true,
    stdio: ['ignore', out, out],
    ...(spec.uid !== undefined ? { uid: spec.uid, gid: spec.gid } : {}),
  });
  closeSync(out);
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (err) => reject(new Error(`Could not start ${spec.name} (${spec.command}): ${err.message}`)));
  });
  const pgid = child.pid as number;
  let exitReason: string | undefined;
  child.once('exit', (code, signal) => {
    exitReason = signal ? `was ended by ${signal}` : `exited with code ${code}`;
  });
  // Do not keep Node alive for the child: whoever started it stops it, or the watchdog does.
  child.unref();
  startWatchdog(pgid);
  return {
    name: spec.name,
    pgid,
    marker: spec.marker,
    logFile: spec.logFile,
    exitReason: () => exitReason,
    stop: () => stopGroup(pgid),
  };
}

/** SIGTERM to the whole group, SIGKILL after a grace period; resolves when none is left. */
export async function stopGroup(pgid: number, graceMs = STOP_GRACE_MS): Promise<void> {
  if (!groupAlive(pgid)) return;
  signalGroup(pgid, 'SIGTERM');
  if (await waitUntil(() => !groupAlive(pgid), graceMs)) return;
  signalGroup(pgid, 'SIGKILL');
  if (!(await waitUntil(() => !groupAlive(pgid), 5_000))) {
    throw new Error(`Process group ${pgid} survived SIGKILL`);
  }
}

/**
 * Whether any live (non-zombie) process is in the group; with `marker`, only if one of them has it
 * on its command line, which tells our processes apart from unrelated ones that reused the id.
 */
export function groupAlive(pgid: number, marker?: string): boolean {
  if (!existsSync('/proc/self/stat')) {
    // No /proc (macOS): signal 0 only says whether the group exists.
    try {
      process.kill(-pgid, 0);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
  return groupMembers(pgid).some((pid) => marker === undefined || commandLine(pid).includes(marker));
}

/** The live (not zombie) processes of a process group. */
export function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    // Zombies are dead already; where PID 1 does not reap orphans they would never go away.
    if (stat && stat.pgrp === pgid && stat.state !== 'Z') members.push(Number(entry));
  }
  return members;
}

/** Fields of /proc/<pid>/stat that we use; undefined when the process is gone. */
export function procStat(
  pid: number,
): { state: string; pgrp: number; startTime: string; cpuTicks: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses; fields after it are plain.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime + stime, in clock ticks (USER_HZ, 100 on Linux).
    return {
      state: fields[0] ?? '',
      pgrp: Number(fields[2]),
      startTime: fields[19] ?? '',
      cpuTicks: Number(fields[11]) + Number(fields[12]),
    };
  } catch {
    return undefined;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/**
 * A tiny shell loop, detached from us: while this Node process lives it only watches; if Node
 * dies (kill -9, crash) it ends the group. It ends by itself once the group is gone.
 */
function startWatchdog(pgid: number): void {
  if (!existsSync('/bin/sh')) return;
  const script = [
    'owner=$1; group=$2',
    'while kill -0 "$owner" 2>/dev/null && kill -0 -"$group" 2>/dev/null; do sleep 1; done',
    'kill -0 -"$group" 2>/dev/null || exit 0',
    'kill -TERM -"$group"; i=0',
    `while kill -0 -"$group" 2>/dev/null && [ $i -lt ${STOP_GRACE_MS / 1000} ]; do sleep 1; i=$((i+1)); done`,
    'kill -KILL -"$group" 2>/dev/null; exit 0',
  ].join('\n');
  spawn('/bin/sh', ['-c', script, 'kb-devstack-watchdog', String(process.pid), String(pgid)], {
    detached: true,
    stdio: 'ignore',
  }).unref();
}

/** Polls `done` every 100 ms; true if it held within `timeoutMs`. */
export async function waitUntil(
  done: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 100,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await done()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The last lines of a log file, for error messages. */
export function logTail(file: string, lines = 40): string {
  try {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      const length = Math.min(size, 64 * 1024);
      const buf = Buffer.alloc(length);
      readSync(fd, buf, 0, length, size - length);
      const tail = buf
        .toString('utf8')
        .split('\n')
        .slice(-lines - 1)
        .join('\n')
        .trimEnd();
      return tail || '(no output yet)';
    } finally {
      closeSync(fd);
    }
  } catch {
    return `(no log at ${file})`;
  }
}
