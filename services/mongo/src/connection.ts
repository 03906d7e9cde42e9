import mongoose, { type Connection } from 'mongoose';
import { ConfigError, AppError, type Logger, DependencyWatch } from '@kb/platform';

export interface MongoHandle {
  readonly connection: Connection;
  /** True while MongoDB answers its ping (probed every 0.5 s with a 0.75 s bound) and the indexes exist. */
  isUp(): boolean;
  /** Throws UNAVAILABLE ("MongoDB is unavailable") at once while MongoDB is known down. */
  assertUp(): void;
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
 * Whether it is up comes from a watch that pings it every 0.5 s with a 0.75 s bound (the driver's
 * own monitor checks only every 10 s, so a dead server went unnoticed for up to 20 s) and from
 * the driver's "disconnected" event, whichever comes first.
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
  let closed = false;
  let prepared = !prepare;
  const watch = new DependencyWatch({
    name: 'MongoDB',
    logger,
    onChange,
    probe: async () => {
      const db = connection.db;
      if (!prepared || !db) return false;
      await db.admin().command({ ping: 1 });
      return true;
    },
  });
  connection.on('connected', () => watch.suspect());
  connection.on('reconnected', () => watch.suspect());
  connection.on('disconnected', () => watch.set(false, 'disconnected'));

  const open = async (): Promise<void> => {
    while (!closed) {
      try {
        await connection.openUri(uri, { serverSelectionTimeoutMS: 3000, bufferCommands: false, maxPoolSize: 20 });
        if (!prepared) {
          await prepare?.();
          prepared = true;
        }
        await watch.start();
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
    isUp: () => watch.isUp(),
    assertUp: () => watch.assertUp(),
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
      watch.stop();
      await connection.close().catch(() => undefined);
    },
  };
}
