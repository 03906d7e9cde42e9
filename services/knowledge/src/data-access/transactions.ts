import type { ClientSession } from 'mongoose';
import type { MongoHandle } from '@kb/mongo';

declare const inTransaction: unique symbol;

/** A write's share in a transaction: opaque outside data-access (a MongoDB session inside). */
export interface Transaction {
  readonly [inTransaction]: true;
}

/** The options of a repository's write: in the transaction when one is given. */
export const sessionOf = (tx?: Transaction): { session?: ClientSession } =>
  tx ? { session: tx as unknown as ClientSession } : {};

/** The unit of work of the entry writes that must land together (an entry, its history, the skill index). */
export interface Transactions {
  /**
   * Runs `work` as one transaction where MongoDB supports them (a replica set or mongos): the
   * repository writes it passes `tx` to commit together or not at all (a transient conflict runs
   * it again). Elsewhere `work` runs once without one (`tx` undefined), its writes one by one.
   */
  run<T>(work: (tx?: Transaction) => Promise<T>): Promise<T>;
  /** Whether `run` has transactions here (a replica set or mongos). */
  available(): Promise<boolean>;
}

export function transactions(mongo: MongoHandle): Transactions {
  return {
    available: () => mongo.supportsTransactions(),
    async run<T>(work: (tx?: Transaction) => Promise<T>): Promise<T> {
      if (!(await mongo.supportsTransactions())) return work();
      let out: T | undefined;
      // A transaction reads from the primary whatever MONGODB_READ_PREFERENCE says (MongoDB requires it).
      await mongo.connection.transaction(
        async (session) => {
          out = await work(session as unknown as Transaction);
        },
        { readPreference: 'primary' },
      );
      return out as T;
    },
  };
}
