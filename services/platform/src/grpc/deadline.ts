import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError } from '../errors';

/**
 * The deadline of the incoming call being served (epoch ms), set by `unary` for everything its
 * handler awaits, so a call made on its behalf ends when the caller stops waiting without the
 * domain code holding the call object. grpc-js's `{parent: call}` would do the same per call.
 */
const incoming = new AsyncLocalStorage<{ deadline: number | undefined }>();

/** Runs `work` as serving a call with this deadline (epoch ms; undefined: the caller set none). */
export function servingCall<T>(deadline: number | undefined, work: () => T): T {
  return incoming.run({ deadline }, work);
}

/** Runs `work` as work of its own (background), whatever call is being served. */
export function outsideCall<T>(work: () => T): T {
  return incoming.exit(work);
}

/** The deadline of the call being served (epoch ms), or undefined outside a call or without one. */
export function incomingDeadline(): number | undefined {
  return incoming.getStore()?.deadline;
}

/**
 * Throws DEADLINE_EXCEEDED when the caller of the call being served has stopped waiting (its
 * deadline passed): for long work in steps (embedding thousands of texts), so it stops between
 * steps instead of running on for nobody. `kept` says what the steps already done left behind.
 */
export function stopIfCallerGone(kept: string, now = Date.now()): void {
  const deadline = incomingDeadline();
  if (deadline !== undefined && now > deadline) throw new AppError('deadline', `The caller stopped waiting; ${kept}`);
}

/** grpc-js's deadline of a server call (a Date, a number, Infinity without one) as epoch ms. */
export function deadlineMs(deadline: Date | number): number | undefined {
  const t = deadline instanceof Date ? deadline.getTime() : Number(deadline);
  return Number.isFinite(t) ? t : undefined;
}

/** The deadline of a call to another service: its own bound or the incoming call's, whichever comes first. */
export function outgoingDeadline(ownMs: number, now = Date.now()): number {
  return Math.min(now + ownMs, incomingDeadline() ?? Infinity);
}
