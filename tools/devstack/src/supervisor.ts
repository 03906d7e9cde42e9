import type { Log } from './log';
import type { RunningProcess } from './process-group';

/** A process `npm start` keeps running: what runs now, and how to start it again (same ports, same data). */
export interface Supervised {
  /** As the output names it: "the knowledge service", "MongoDB". */
  readonly name: string;
  current(): RunningProcess;
  /** Starts it again and resolves once it is ready (or rejects with why it is not). */
  restart(): Promise<RunningProcess>;
}

/** The first restart waits this long; each failed or short-lived run doubles it up to the cap. */
export const RESTART_BACKOFF_MS = 1_000;
export const MAX_RESTART_BACKOFF_MS = 30_000;
/** A run this long counts as healthy again: the next crash starts over at the first backoff. */
export const STABLE_RUN_MS = 60_000;
const CHECK_EVERY_MS = 500;

export interface Supervisor {
  /** Stops watching; resolves once a restart under way has finished (so stopping finds every process). */
  stop(): Promise<void>;
}

/**
 * Restarts a supervised process that ends while the stack runs, with exponential backoff
 * (1 s, 2 s, 4 s … 30 s; back to 1 s after a minute of steady running), and says so in the
 * output each time. It never gives up: a backend that cannot start is retried every 30 s, and
 * the output says why it failed.
 */
export function supervise(
  items: Supervised[],
  log: Log,
  onRestarted?: (item: Supervised, proc: RunningProcess) => void,
): Supervisor {
  const backoff = new Map<Supervised, number>();
  const startedAt = new Map<Supervised, number>(items.map((i) => [i, Date.now()]));
  let stopped = false;
  let restarting: Promise<void> = Promise.resolve();
  const busy = new Set<Supervised>();
  // Waits for a backoff end early when the supervisor stops (Ctrl-C must not wait 30 s).
  const wakers = new Set<() => void>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      wakers.add(wake);
    });

  const restart = async (item: Supervised, why: string): Promise<void> => {
    const ranFor = Date.now() - (startedAt.get(item) ?? 0);
    let wait = ranFor >= STABLE_RUN_MS ? RESTART_BACKOFF_MS : (backoff.get(item) ?? RESTART_BACKOFF_MS);
    for (let attempt = 1; !stopped; attempt++) {
      log(`${item.name} ${why}; restarting in ${wait / 1000} s (attempt ${attempt})`);
      await sleep(wait);
      if (stopped) return;
      const next = Math.min(wait * 2, MAX_RESTART_BACKOFF_MS);
      try {
        const started = Date.now();
        const proc = await item.restart();
        startedAt.set(item, Date.now());
        backoff.set(item, next);
        log(`${item.name} restarted (pid ${proc.pgid}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
        onRestarted?.(item, proc);
        return;
      } catch (err) {
        why = `did not come back (${(err as Error).message.split('\n')[0]})`;
        wait = next;
      }
    }
  };

  const timer = setInterval(() => {
    if (stopped) return;
    for (const item of items) {
      const reason = item.current().exitReason();
      if (!reason || busy.has(item)) continue;
      busy.add(item);
      const done = restart(item, reason).finally(() => busy.delete(item));
      restarting = Promise.all([restarting, done]).then(() => undefined);
    }
  }, CHECK_EVERY_MS);

  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      for (const wake of [...wakers]) wake();
      await restarting;
    },
  };
}
