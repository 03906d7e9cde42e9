import mongoose, { type Connection, type mongo } from 'mongoose';
import type { IndexBacklog } from './metrics';

type Collection = mongo.Collection;
import type { Logger } from './logging';
import { AppError } from './errors';

export interface MongoHandle {
  readonly connection: Connection;
  /** True while the driver can reach a server. */
  isUp(): boolean;
  /** Whether the deployment supports multi-document transactions (a replica set or mongos). */
  supportsTransactions(): Promise<boolean>;
  close(): Promise<void>;
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

const UNAVAILABLE_ERRORS = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongooseServerSelectionError',
]);

/** Turns driver errors that mean "MongoDB is not reachable" into a 503-kind AppError. */
export function mapMongoError(err: unknown): unknown {
  const name = (err as { name?: string })?.name ?? '';
  const message = (err as { message?: string })?.message ?? '';
  if (
    UNAVAILABLE_ERRORS.has(name) ||
    /Client must be connected|buffering timed out|before initial connection is complete|connection .* closed/i.test(
      message,
    )
  ) {
    return AppError.unavailable('MongoDB is unavailable');
  }
  return err;
}

/** MongoDB's code for a write refused by a unique index. */
const DUPLICATE_KEY = 11000;

export const isDuplicateKey = (err: unknown): boolean => (err as { code?: number } | null)?.code === DUPLICATE_KEY;

/**
 * Runs a write; when a unique index refuses it, answers `instead()` (a value, or an AppError it
 * throws) rather than the driver's error. Data-access code maps duplicate keys only through this.
 */
export async function onDuplicateKey<T, R>(write: () => Promise<T>, instead: () => R): Promise<T | R> {
  try {
    return await write();
  } catch (err) {
    if (isDuplicateKey(err)) return instead();
    throw err;
  }
}

/**
 * What an indexer still has to do, every tenant together: queued documents (counted on the
 * queue index, `queued` its filter) plus delete tombstones, and the oldest write among them.
 * Bounded in time, because a metrics scrape asks for it.
 */
export async function readIndexBacklog(
  documents: Collection,
  queued: Record<string, unknown>,
  tombstones: Collection,
): Promise<IndexBacklog> {
  const maxTimeMS = 2_000;
  const [waiting, deletions, firstWaiting, firstDeletion] = await Promise.all([
    documents.countDocuments(queued, { maxTimeMS }),
    tombstones.estimatedDocumentCount({ maxTimeMS }),
    documents.find(queued, { projection: { updated_at: 1 }, sort: { updated_at: 1 }, limit: 1, maxTimeMS }).next(),
    tombstones.find({}, { projection: { deleted_at: 1 }, sort: { deleted_at: 1 }, limit: 1, maxTimeMS }).next(),
  ]);
  const times = [firstWaiting?.updated_at, firstDeletion?.deleted_at].filter((t): t is Date => t instanceof Date);
  return {
    count: waiting + deletions,
    oldest: times.length ? new Date(Math.min(...times.map((t) => t.getTime()))) : null,
  };
}
