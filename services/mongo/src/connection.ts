import mongoose, { type ConnectOptions, type Connection } from 'mongoose';
import { ConfigError, AppError, type Logger, DependencyWatch } from '@kb/platform';

/**
 * How the connection talks to MongoDB (docs/mongodb.md, "Connection settings"); the services
 * read them from MONGODB_* variables (@kb/platform MONGODB_SETTINGS), whose defaults these are.
 */
export interface MongoSettings {
  maxPoolSize: number;
  /** `majority` or a number of members. */
  writeConcern: string;
  readConcern: 'majority' | 'local';
  readPreference: 'primary' | 'primaryPreferred' | 'secondary' | 'secondaryPreferred' | 'nearest';
  serverSelectionTimeoutMS: number;
}

export const DEFAULT_MONGO_SETTINGS: MongoSettings = {
  maxPoolSize: 20,
  writeConcern: 'majority',
  readConcern: 'majority',
  readPreference: 'primary',
  serverSelectionTimeoutMS: 3000,
};

/** The settings from a service's validated configuration (the MONGODB_* variables). */
export function mongoSettingsOf(config: {
  MONGODB_MAX_POOL_SIZE: number;
  MONGODB_WRITE_CONCERN: string;
  MONGODB_READ_CONCERN: string;
  MONGODB_READ_PREFERENCE: string;
  MONGODB_SERVER_SELECTION_TIMEOUT_MS: number;
}): MongoSettings {
  return {
    maxPoolSize: config.MONGODB_MAX_POOL_SIZE,
    writeConcern: config.MONGODB_WRITE_CONCERN,
    readConcern: config.MONGODB_READ_CONCERN as MongoSettings['readConcern'],
    readPreference: config.MONGODB_READ_PREFERENCE as MongoSettings['readPreference'],
    serverSelectionTimeoutMS: config.MONGODB_SERVER_SELECTION_TIMEOUT_MS,
  };
}

/** The driver's options for the settings: commands never buffered while disconnected. */
export function clientOptionsOf(settings: MongoSettings): ConnectOptions {
  const w = /^[0-9]+$/.test(settings.writeConcern) ? Number(settings.writeConcern) : 'majority';
  return {
    bufferCommands: false,
    maxPoolSize: settings.maxPoolSize,
    serverSelectionTimeoutMS: settings.serverSelectionTimeoutMS,
    writeConcern: { w },
    readConcern: { level: settings.readConcern },
    readPreference: settings.readPreference,
  };
}

/** What the server is, as its handshake says: a replica set member, mongos, or a standalone (the local stand-in is one). */
export type MongoTopology = 'replica set' | 'sharded' | 'standalone';

export interface MongoHandle {
  readonly connection: Connection;
  /** True while MongoDB answers its ping (a DependencyWatch: every 0.25 s, bounded at 1 s, wider while slow) and the indexes exist. */
  isUp(): boolean;
  /** Throws UNAVAILABLE ("MongoDB is unavailable") at once while MongoDB is known down. */
  assertUp(): void;
  /** Whether the deployment supports multi-document transactions (a replica set or mongos). */
  supportsTransactions(): Promise<boolean>;
  /** The kind of deployment (asked once, then kept). */
  topology(): Promise<MongoTopology>;
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
 * Whether it is up comes from a DependencyWatch that pings it every 0.25 s with a 1 s bound (the driver's
 * own monitor checks only every 10 s, so a dead server went unnoticed for up to 20 s) and from
 * the driver's "disconnected" event, whichever comes first.
 */
export function connectMongo(
  uri: string,
  logger: Logger,
  options: { onChange?: (up: boolean) => void; prepare?: () => Promise<void>; settings?: MongoSettings } = {},
): MongoHandle {
  const { onChange, prepare, settings = DEFAULT_MONGO_SETTINGS } = options;
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
        await connection.openUri(uri, clientOptionsOf(settings));
        if (!prepared) {
          await prepare?.();
          prepared = true;
          await describeDeployment();
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

  let kind: MongoTopology | undefined;
  const topology = async (): Promise<MongoTopology> => {
    if (kind !== undefined) return kind;
    const db = connection.db;
    if (!db) throw AppError.unavailable('MongoDB is unavailable');
    // The local stand-in answers only the older `isMaster`.
    const hello = (await db
      .admin()
      .command({ hello: 1 })
      .catch(() => db.admin().command({ isMaster: 1 }))) as { setName?: string; msg?: string };
    kind = hello.setName ? 'replica set' : hello.msg === 'isdbgrid' ? 'sharded' : 'standalone';
    return kind;
  };
  /**
   * Says once, at start, what the deployment gives: on a standalone (the local stand-in is one)
   * `majority` is that one server's acknowledgement and entry writes run without transactions.
   */
  async function describeDeployment(): Promise<void> {
    const found = await topology().catch(() => undefined);
    if (!found) return;
    const { writeConcern, readConcern, readPreference, maxPoolSize } = settings;
    const facts = { dependency: 'mongodb', topology: found, writeConcern, readConcern, readPreference, maxPoolSize };
    if (found === 'standalone')
      logger.info(
        facts,
        'MongoDB is a standalone server: writes are acknowledged by it alone and run without transactions (a replica set has both)',
      );
    else logger.info(facts, `MongoDB is a ${found}: writes acknowledged as set, transactions available`);
  }
  return {
    connection,
    isUp: () => watch.isUp(),
    assertUp: () => watch.assertUp(),
    topology,
    async supportsTransactions() {
      return (await topology()) !== 'standalone';
    },
    async close() {
      closed = true;
      watch.stop();
      await connection.close().catch(() => undefined);
    },
  };
}
