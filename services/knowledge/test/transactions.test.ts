/**
 * The unit of work behind entry writes (data-access/transactions.ts): one MongoDB transaction
 * where the deployment supports them, else the work once without one.
 */
import type { MongoHandle } from '@kb/mongo';
import { transactions, type Transaction } from '../src/data-access/transactions';

function handle(supports: boolean) {
  const sessions: object[] = [];
  const mongo = {
    supportsTransactions: async () => supports,
    connection: {
      transaction: async (fn: (session: object) => Promise<void>, options?: { readPreference?: string }) => {
        const session = { id: sessions.length + 1, readPreference: options?.readPreference };
        sessions.push(session);
        await fn(session);
      },
    },
  } as unknown as MongoHandle;
  return { mongo, sessions };
}

describe('the entry writes unit of work', () => {
  test('when MongoDB supports transactions, then the work runs in one, every write given its session', async () => {
    const { mongo, sessions } = handle(true);
    const seen: (Transaction | undefined)[] = [];
    const result = await transactions(mongo).run(async (tx) => (seen.push(tx), 'written'));
    expect(result).toBe('written');
    expect(sessions).toHaveLength(1);
    expect(seen).toEqual([sessions[0]]);
    // MongoDB refuses a transaction that reads elsewhere; MONGODB_READ_PREFERENCE applies outside them.
    expect(sessions[0]).toMatchObject({ readPreference: 'primary' });
  });

  test('when MongoDB has no transactions, then the work runs once without one', async () => {
    const { mongo, sessions } = handle(false);
    const seen: (Transaction | undefined)[] = [];
    expect(await transactions(mongo).run(async (tx) => (seen.push(tx), 'written'))).toBe('written');
    expect(sessions).toHaveLength(0);
    expect(seen).toEqual([undefined]);
  });
});
