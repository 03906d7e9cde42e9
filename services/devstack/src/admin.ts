/**
 * `npm run admin -- …`: the knowledge service's admin CLI, pointed at the backends of this
 * checkout's running `npm start` when MONGODB_URI is not set, so no extra flags are needed.
 * The catalog's commands (`products …`, `reindex products`) go to the catalog package, which
 * indexes through the running similarity service (its address from the run state, or
 * SIMILARITY_GRPC_ADDR).
 */
import mongoose from 'mongoose';
import { adminMain } from '@kb/knowledge';
import { CATALOG_USAGE, CatalogUsageError, runCatalogAdmin } from '@kb/catalog';
import { readStartState } from './state';

const CATALOG_GROUPS = new Set(['products', 'reindex']);

async function catalogMain(args: string[], similarityAddr: string | undefined): Promise<number> {
  const uri = process.env.MONGODB_URI as string;
  const connection = mongoose.createConnection();
  try {
    await connection.openUri(uri, { serverSelectionTimeoutMS: 5000 });
  } catch (err) {
    process.stderr.write(`admin: cannot reach MongoDB: ${(err as Error).message}\n`);
    return 1;
  }
  try {
    return await runCatalogAdmin(args, connection, (line) => process.stdout.write(`${line}\n`), similarityAddr ? { similarityAddr } : {});
  } catch (err) {
    if (err instanceof CatalogUsageError) {
      process.stderr.write(`admin: ${err.message}\n\n${CATALOG_USAGE}\n`);
      return 2;
    }
    process.stderr.write(`admin: ${(err as Error).message}\n`);
    return 1;
  } finally {
    await connection.close();
  }
}

async function run(): Promise<number> {
  const args = process.argv.slice(2);
  const wantsHelp = args.length === 0 || args[0] === '--help' || args[0] === 'help';
  const state = readStartState();
  if (!process.env.MONGODB_URI && !wantsHelp) {
    const mongoUri = (state?.extra?.mongoUri as string | undefined) ?? state?.mongoUri;
    if (!mongoUri) {
      process.stderr.write('admin: no running stack found for this checkout and MONGODB_URI is not set.\n' +
        '       Start the stack with `npm start` (in another terminal), or set MONGODB_URI.\n');
      return 2;
    }
    process.env.MONGODB_URI = mongoUri;
  }
  if (args[0] && CATALOG_GROUPS.has(args[0])) {
    return catalogMain(args, process.env.SIMILARITY_GRPC_ADDR ?? (state?.extra?.similarityGrpcAddr as string | undefined));
  }
  const code = await adminMain(args);
  if (wantsHelp) process.stdout.write(`${CATALOG_USAGE}\n`);
  return code;
}

void run().then((code) => process.exit(code));
