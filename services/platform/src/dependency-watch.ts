import { AppError } from './errors';
import type { Logger } from './logging';

/**
 * How often a dependency is probed and how long one probe may take. A refused connection fails
 * a probe at once; a frozen dependency (SIGSTOP, a hung host) is a probe that times out, and a
 * timed-out probe is followed by the next at once, so the worst case from "gone" to "known
 * down" is interval + timeout × timeoutsToDown (2.25 s).
 */
export const WATCH_INTERVAL_MS = 250;
/**
 * 1 s, not less: a live MongoDB-compatible server under a burst of writes on a busy 2-core host
 * answered a ping in over 0.75 s twice in a row, and every call was refused for a moment (seen
 * in CI). Frozen to known down stays under 3 s: 0.25 + 2 × 1 s.
 */
export const WATCH_TIMEOUT_MS = 1000;
/**
 * Consecutive timed-out probes before a dependency counts as down: one late answer (a busy
 * event loop, a garbage collection) is not an outage. A probe that fails outright (refused,
 * reset, an explicit "not serving") counts at once.
 */
export const WATCH_TIMEOUTS_TO_DOWN = 2;
/**
 * How far the bound widens, as a multiple of the timeout, for a dependency whose probes answer
 * late but answer, twice in a row (a saturated MongoDB-compatible server kept serving while the
 * watch called it down): slow is busy, not down. Frozen after such a spell, it is known down within
 * interval + timeoutsToDown × the widened bound (8.25 s at most with the defaults).
 */
export const WATCH_MAX_TIMEOUT_FACTOR = 4;

/**
 * A probe's verdict: true up; false or a thrown error down (the error says why, for the log).
 * `boundMs` is how long the watch waits for it this time: a probe's own request timeout must be
 * longer (`probeDeadlineMs`), so that a frozen dependency is a timed-out probe, not an error.
 */
export type Probe = (boundMs: number) => Promise<boolean>;

/** A probe request's own timeout for a watch bound: longer than the bound, at least 2 s. */
export const probeDeadlineMs = (boundMs: number) => Math.max(2 * WATCH_TIMEOUT_MS, 2 * boundMs);

export interface DependencyWatchOptions {
  /** What is watched, in the product's words: "MongoDB", "the similarity service". */
  name: string;
  probe: Probe;
  logger?: Logger;
  intervalMs?: number;
  timeoutMs?: number;
  timeoutsToDown?: number;
  /** The widest bound a slow dependency's probes get; default WATCH_MAX_TIMEOUT_FACTOR × timeoutMs. */
  maxTimeoutMs?: number;
  /** Called on every change of state (not on every probe). */
  onChange?: (up: boolean) => void;
  /** The state before the first probe has answered; default down (not ready until seen). */
  initiallyUp?: boolean;
}

class ProbeTimeout extends Error {}
class ProbeInconclusive extends Error {}
/** A timer this late means the event loop was stalled here: the probe says nothing about the dependency. */
const STALL_MS = 250;

/**
 * A health watch over one dependency: probes it on a timer with a bounded wait and keeps
 * whether it is up, so a request that needs it can be refused at once (`assertUp`: 503, the
 * caller retries later) instead of spending its whole deadline on a dependency known to be away.
 * A caller that saw the dependency fail can ask for a probe now (`suspect`).
 */
export class DependencyWatch {
  readonly name: string;
  private up: boolean;
  private timeouts = 0;
  /** Why it is down: timed-out probes (late answers then bring it back) or an outright failure. */
  private downByTimeouts = false;
  /** Probes in a row that answered after their bound: one is a hiccup, two a dependency that is slow now. */
  private lateAnswers = 0;
  private timer?: NodeJS.Timeout;
  private probing?: Promise<void>;
  private stopped = false;
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private readonly timeoutsToDown: number;
  private readonly maxTimeoutMs: number;
  /** The current probe bound: timeoutMs, widened to 1.5 × the last answer's time when answers come slowly. */
  private boundMs: number;
  private readonly listeners = new Set<(up: boolean) => void>();

  constructor(private readonly options: DependencyWatchOptions) {
    this.name = options.name;
    this.up = options.initiallyUp ?? false;
    this.intervalMs = options.intervalMs ?? WATCH_INTERVAL_MS;
    this.timeoutMs = options.timeoutMs ?? WATCH_TIMEOUT_MS;
    this.timeoutsToDown = options.timeoutsToDown ?? WATCH_TIMEOUTS_TO_DOWN;
    this.maxTimeoutMs = Math.max(this.timeoutMs, options.maxTimeoutMs ?? WATCH_MAX_TIMEOUT_FACTOR * this.timeoutMs);
    this.boundMs = this.timeoutMs;
  }

  isUp(): boolean {
    return this.up;
  }

  /** Probes now and then every interval until `stop()`; resolves after the first probe. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.probeNow();
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Throws a 503-kind AppError naming the dependency while it is known down. */
  assertUp(): void {
    if (!this.up) throw this.unavailable();
  }

  /** The 503-kind AppError a call that needs the dependency gets while it is down. */
  unavailable(): AppError {
    return AppError.unavailable(`${capitalised(this.name)} is unavailable`);
  }

  /**
   * Calls `listener` on every change of state (after `onChange`) until the returned function is
   * called: a call in flight to the dependency can stop waiting when it turns down.
   */
  subscribe(listener: (up: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Sets the state from outside (e.g. a driver's own "disconnected" event); the probes go on. */
  set(up: boolean, reason?: string): void {
    this.timeouts = 0;
    this.change(up, reason);
  }

  /**
   * A call to the dependency just got its answer: probes that timed out meanwhile were slow, not
   * an outage (on a saturated host a probe waits behind the very calls it competes with), so
   * their count starts again. The state itself is left to the probes: a call begun before a
   * "not serving" answer does not bring the dependency back.
   */
  answered(): void {
    this.timeouts = 0;
  }

  /** A call to the dependency just failed in a way that suggests it is gone: probe now, not at the next tick. */
  suspect(): void {
    if (!this.stopped) void this.probeNow();
  }

  /** One probe (joined if one is running), bounded by the timeout. */
  probeNow(): Promise<void> {
    this.probing ??= this.runProbe().finally(() => (this.probing = undefined));
    return this.probing;
  }

  private schedule(): void {
    if (this.stopped) return;
    // A probe that just timed out is confirmed (or not) at once, not after another interval.
    const delay = this.up && this.timeouts > 0 ? 0 : this.intervalMs;
    this.timer = setTimeout(() => void this.probeNow().finally(() => this.schedule()), delay);
    this.timer.unref();
  }

  private async runProbe(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const started = Date.now();
    const bound = this.boundMs;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        // A stalled event loop (a long synchronous task, a collection) fires this late, with the
        // answer perhaps already waiting in the socket: let pending I/O run first, and do not
        // count a wait that this process, not the dependency, made long.
        const lag = Date.now() - started - bound;
        setImmediate(() => reject(lag > STALL_MS ? new ProbeInconclusive() : new ProbeTimeout()));
      }, bound);
      timer.unref();
    });
    const probe = this.options.probe(bound);
    try {
      const ok = await Promise.race([probe, timeout]);
      this.timeouts = 0;
      if (ok) {
        this.lateAnswers = 0;
        this.fitBound(Date.now() - started);
        this.change(true);
      } else {
        this.change(false, 'not serving');
      }
    } catch (err) {
      if (err instanceof ProbeInconclusive) return;
      if (err instanceof ProbeTimeout) {
        this.timeouts += 1;
        // An answer after the bound is a busy dependency, not a gone one (a frozen one never
        // answers): it clears the count as an answered call does, widens the bound to fit, and
        // brings back a dependency that only timed-out probes had marked down.
        void probe.then(
          (late) => late && this.answeredLate(Date.now() - started),
          () => undefined,
        );
        if (this.timeouts >= this.timeoutsToDown) {
          this.change(false, `no answer within ${bound} ms, ${this.timeouts} times`);
          this.downByTimeouts = !this.up;
        }
      } else {
        this.timeouts = 0;
        this.change(false, (err as Error)?.message ?? String(err));
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A probe answered "up" after its bound, `tookMs` after it began. The second such answer in a
   * row widens the bound and brings back a dependency that timeouts alone marked down (one late
   * answer, a hiccup of a busy host, leaves the bound, so a freeze right after it is still known
   * as soon). Slower than the widest bound, it stays down: callers could not be served in time.
   */
  private answeredLate(tookMs: number): void {
    if (this.stopped) return;
    this.answered();
    this.lateAnswers += 1;
    if (this.lateAnswers < 2) return;
    this.fitBound(tookMs);
    if (tookMs <= this.maxTimeoutMs && !this.up && this.downByTimeouts)
      this.change(true, `answered after ${tookMs} ms: slow, not gone`);
  }

  /** The next probes' bound: half as long again as the last answer took, within [timeoutMs, maxTimeoutMs]. */
  private fitBound(tookMs: number): void {
    this.boundMs = Math.min(this.maxTimeoutMs, Math.max(this.timeoutMs, Math.ceil(1.5 * tookMs)));
  }

  private change(up: boolean, reason?: string): void {
    if (up === this.up || this.stopped) return;
    this.up = up;
    this.downByTimeouts = false;
    this.options.logger?.[up ? 'info' : 'warn'](
      { dependency: this.name, up, ...(reason ? { reason } : {}) },
      up ? `${this.name} reachable` : `${this.name} not reachable`,
    );
    this.options.onChange?.(up);
    for (const listener of [...this.listeners]) listener(up);
  }
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
