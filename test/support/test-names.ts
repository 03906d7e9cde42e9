/**
 * The names tests give what they make on the backends (MongoDB databases, Elasticsearch index
 * prefixes, tenants): `<word>-<12 hex>`, the first 4 hex the run's (KB_TEST_RUN, set once by
 * global-setup.ts for every worker), so a run's teardown can remove its own from servers it was
 * given and leave another run's alone (given-backends.ts).
 */
import { randomBytes } from 'node:crypto';

const TEST_RUN_ENV = 'KB_TEST_RUN';

/** This run's id: 4 hex digits (outside a jest run with the set-up, a random one per process). */
export function testRun(): string {
  return (process.env[TEST_RUN_ENV] ??= randomBytes(2).toString('hex'));
}

export function testName(word: string): string {
  // 32 random bits: some 50 files a run each name a database `kbtest-…`, and 16 bits would give
  // two of them the same one about once in 50 runs.
  return `${word}-${testRun()}${randomBytes(4).toString('hex')}`;
}

/** Whether `name` (a database, or an index under a prefix testName made) is of the run `run`. */
export const ofTestRun = (name: string, run: string): boolean =>
  new RegExp(`^[a-z]+-${run}[0-9a-f]{8}(-|$)`).test(name);
