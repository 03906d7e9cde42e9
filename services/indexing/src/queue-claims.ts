import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { DEADLINE_TOLERANCE_MS, DEFAULT_DEADLINE_MS } from '@kb/platform';

/**
 * How long a claim on queued documents holds without being renewed. A replica that dies in the
 * middle of a call loses its claims after this long and another replica takes them; while a
 * call runs, its claims are renewed every third of it, so a long call keeps them.
 */
export const CLAIM_MS = 30_000;

/** A leased claim: who holds it and until when (epoch ms). */
export interface Lease {
  owner: string;
  untilMs: number;
}

/**
 * Leased claims on one queue (documents to index, or deletions to apply), held in the database
 * so that every replica's indexer and every write's own indexing take each queued change once.
 */
export interface QueueClaims<T extends { id: string }> {
  /**
   * Claims those of `items` that are still queued and not held by a live claim, with one
   * conditional update; returns them as stored now (a newer state than `items` when one was
   * written meanwhile).
   */
  take(items: T[], lease: Lease): Promise<T[]>;
  /** Moves the claims `owner` still holds on `items` to `untilMs`. */
  extend(items: T[], lease: Lease): Promise<void>;
  /** Gives back the claims `owner` still holds on `items` (marking a document indexed gives its claim back too). */
  giveBack(items: T[], owner: string): Promise<void>;
}

/** A claim owner unique to one attempt: the process (host, pid) it came from, for a reader of the database. */
export const claimOwner = (): string => `${hostname()}:${process.pid}:${randomUUID()}`;

/** Keeps the claims on `items` until `untilMs` instead of giving them back when the attempt ends. */
export type KeepClaims<T> = (items: T[], untilMs: number) => void;
/** What `work` tells `withClaims` of its documents: keep some claims longer; others were cleared by marking them. */
export interface ClaimsAfterwards<T> {
  keep: KeepClaims<T>;
  /** These were marked indexed, which cleared their claims (changed since or not): nothing to give back. */
  settled(ids: Iterable<string>): void;
}

/**
 * Runs `work` on the items this attempt could claim (none: `work` does not run), renewing the
 * claims while it runs and giving back whatever is still held when it ends, whatever the
 * outcome, except what `work` asked to keep (`keep`: a call whose fate is unknown may still run
 * until its deadline, so nobody may send those documents again before then).
 */
export async function withClaims<T extends { id: string }, R>(
  claims: QueueClaims<T> | undefined,
  items: T[],
  work: (held: T[], afterwards: ClaimsAfterwards<T>) => Promise<R>,
  claimMs = CLAIM_MS,
): Promise<R | undefined> {
  if (!claims) return work(items, { keep: () => undefined, settled: () => undefined });
  const owner = claimOwner();
  const held = await claims.take(items, { owner, untilMs: Date.now() + claimMs });
  if (held.length === 0) return undefined;
  const renew = setInterval(
    () => void claims.extend(held, { owner, untilMs: Date.now() + claimMs }).catch(() => undefined),
    Math.max(claimMs / 3, 10),
  );
  renew.unref();
  const kept: { items: T[]; untilMs: number }[] = [];
  const settled = new Set<string>();
  try {
    return await work(held, {
      keep: (keep, untilMs) => void (keep.length && kept.push({ items: keep, untilMs })),
      settled: (ids) => {
        for (const id of ids) settled.add(id);
      },
    });
  } finally {
    clearInterval(renew);
    for (const k of kept) for (const i of k.items) settled.add(i.id);
    await Promise.all([
      claims.giveBack(
        held.filter((i) => !settled.has(i.id)),
        owner,
      ),
      ...kept.map((k) => claims.extend(k.items, { owner, untilMs: k.untilMs })),
    ]).catch(() => undefined);
  }
}

/**
 * Until when a call sent now with `deadlineMs` (else the client's default) may still start on
 * the service: its deadline plus the tolerance the service allows a signed deadline.
 */
export function mayStillRunUntil(deadlineMs: number | undefined): number {
  return Date.now() + (deadlineMs ?? DEFAULT_DEADLINE_MS) + DEADLINE_TOLERANCE_MS;
}
