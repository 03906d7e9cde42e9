import mongoose, { type Connection } from 'mongoose';
import { ConfigError } from '../config';
import { AppError } from '../errors';
import type { Logger } from '../logging';

export interface MongoHandle {
  readonly connection: Connection;
  /** True while the driver can reach a server. */
  isUp(): boolean;
  /** Whether the deployment supports multi-document transactions (a replica set or mongos). */
  supportsTransactions(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * A connection string the driver cannot parse is a configuration error, not an outage to retry:
 * it stops the service naming the setting. Neither the value nor the driver's message (which
 * may quote a part of it) is shown: the string may carry a password.
 */
function assertParsable(uri: string): void {
  try {
    // The constructor parses the string and its options; it opens nothing until connect().
    new mongoose.mongo.MongoClient(uri);
  } catch {
    throw new ConfigError([
      'MONGODB_URI is not a connection string the MongoDB driver can parse (value not shown): ' +
        'check the host list and ports, the options, and that the user name and password are percent-encoded',
    ]);
  }
}

/**
 * Opens a mongoose connection that never blocks a request while MongoDB is down: commands
 * are not buffered and server selection gives up after a few seconds, so callers get a
 * clear "unavailable" instead of a hang. The first connect is retried in the background,
 * so the service starts (and says it is not ready) even when MongoDB is not reachable yet.
 * `prepare` (index creation) runs once after the first connect, before the service counts as up.
 * One closure: the connection events, the retrying open and the handle share the up/closed state.
 */
export function connectMongo(
  uri: string,
  logger: Logger,
  options: { onChange?: (up: boolean) => void; prepare?: () => Promise<void> } = {},
): MongoHandle {
  const { onChange, prepare } = options;
  assertParsable(uri);
  const connection = mongoose.createConnection();
  connection.set('bufferCommands', false);
  let up = false;
  let closed = false;
  let prepared = !prepare;
  const setUp = (value: boolean) => {
    if (value && !prepared) return;
    if (value === up) return;
    up = value;
    logger.info({ dependency: 'mongodb', up }, up ? 'MongoDB reachable' : 'MongoDB not reachable');
    onChange?.(up);
  };
  connection.on('connected', () => setUp(true));
  connection.on('reconnected', () => setUp(true));
  connection.on('disconnected', () => setUp(false));

  const open = async (): Promise<void> => {
    while (!closed) {
      try {
        await connection.openUri(uri, { serverSelectionTimeoutMS: 3000, bufferCommands: false, maxPoolSize: 20 });
        if (!prepared) {
          await prepare?.();
          prepared = true;
        }
        setUp(true);
        return;
      } catch (err) {
        logger.warn({ dependency: 'mongodb', err: (err as Error).message }, 'MongoDB connect failed; retrying');
        await new Promise((r) => setTimeout(r, 1000).unref());
      }
    }
  };
  void open();

  let transactions: boolean | undefined;
  return {
    connection,
    isUp: () => up,
    async supportsTransactions() {
      if (transactions !== undefined) return transactions;
      const db = connection.db;
      if (!db) throw AppError.unavailable('MongoDB is unavailable');
      const hello = (await db
        .admin()
        .command({ hello: 1 })
        .catch(() => db.admin().command({ isMaster: 1 }))) as {
        setName?: string;
        msg?: string;
      };
      transactions = Boolean(hello.setName) || hello.msg === 'isdbgrid';
      return transactions;
    },
    async close() {
      closed = true;
      await connection.close().catch(() => undefined);
    },
  };
}
