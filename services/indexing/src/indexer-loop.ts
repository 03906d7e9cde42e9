import type { Logger } from '@kb/platform';

/** What one pass of a background indexer came to. */
export interface IndexerPass {
  /** A full batch was done: more is waiting, so the next pass runs at once. */
  more?: boolean;
  /** Something was not got through (a dependency away): the next pass waits longer. */
  failed?: boolean;
}

export interface IndexerLoop<R extends IndexerPass> {
  /** Schedules the first pass one interval from now. */
  start(): void;
  /** One pass now, or the running one; undefined when it threw (logged). */
  runOnce(): Promise<R | undefined>;
  /**
   * Work just arrived: the next pass runs at once rather than at the end of the interval (after
   * the running one, if one runs). No effect before start, after stop, or while backing off
   * after failures (the dependency is still away).
   */
  nudge(): void;
  /** Schedules no more passes and waits for the running one, up to `stopWaitMs`. */
  stop(): Promise<void>;
}

/** A dependency that stays away is still tried at least this often. */
const MAX_BACKOFF_MS = 30_000;
const MAX_BACKOFF_INTERVALS = 16;

/**
 * The background indexers' loop: one pass at a time (a pass asked for while one runs joins
 * it), every interval; at once while passes find a full batch; after failed passes, waiting
 * interval×2^failures (capped) so an outage is not hammered, back to the interval after the
 * first pass that gets through. One closure because the three methods share the running pass,
 * the timer and the failure count.
 */
export function indexerLoop<R extends IndexerPass>(options: {
  name: string;
  intervalMs: number;
  logger: Logger;
  pass: () => Promise<R>;
  stopWaitMs?: number;
}): IndexerLoop<R> {
  const { name, intervalMs, logger, pass } = options;
  const stopWaitMs = options.stopWaitMs ?? 5_000;
  const maxBackoffMs = Math.min(intervalMs * MAX_BACKOFF_INTERVALS, MAX_BACKOFF_MS);
  let running: Promise<R | undefined> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let started = false;
  let stopped = false;
  let failures = 0;
  /** Nudged while a pass ran: the next pass follows it at once. */
  let nudged = false;

  const runOnce = (): Promise<R | undefined> => {
    running ??= pass()
      .catch((err: unknown) => {
        logger.warn({ err: (err as Error)?.message ?? String(err) }, `${name} pass failed`);
        return undefined;
      })
      .then((outcome) => {
        failures = outcome === undefined || outcome.failed ? failures + 1 : 0;
        return outcome;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  const delayAfter = (outcome: R | undefined): number => {
    if (failures > 0) return Math.min(intervalMs * 2 ** failures, maxBackoffMs);
    const again = nudged;
    nudged = false;
    return outcome?.more || again ? 0 : intervalMs;
  };

  /** The timer's pass; at most one timer is pending, none while its pass runs. */
  let waiting = false;
  const schedule = (delayMs: number) => {
    if (stopped) return;
    waiting = true;
    timer = setTimeout(() => {
      waiting = false;
      void runOnce().then((outcome) => schedule(delayAfter(outcome)));
    }, delayMs);
    timer.unref();
  };

  return {
    start() {
      if (started) return;
      started = true;
      schedule(intervalMs);
    },
    runOnce,
    nudge() {
      if (!started || stopped || failures > 0) return;
      if (!waiting) {
        // The timer's pass is running: it schedules the next one when it ends.
        nudged = true;
        return;
      }
      // Between passes: the waiting timer is brought forward (a pass running from runOnce is
      // joined by it, then the loop goes on as usual).
      clearTimeout(timer);
      waiting = false;
      schedule(0);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      const pending = running;
      if (!pending) return;
      let bound: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<boolean>((resolve) => {
        bound = setTimeout(() => resolve(true), stopWaitMs);
      });
      const timedOut = await Promise.race([pending.then(() => false), gaveUp]);
      clearTimeout(bound);
      if (timedOut) logger.warn({ wait_ms: stopWaitMs }, `${name} stopped while a pass was still running`);
    },
  };
}
