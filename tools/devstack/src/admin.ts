/**
 * `npm run admin -- …`: the knowledge service's admin CLI, pointed at the backends of this
 * checkout's running `npm start` when MONGODB_URI is not set, so no extra flags are needed.
 * The catalog's commands (`products …`, `reindex products`) go to the catalog package; both
 * reindex commands index through the running similarity service (its address from the run
 * state, or SIMILARITY_GRPC_ADDR). `index errors|retry` concern both: entries (knowledge) and
 * products (catalog), each package doing its kind; `--kind` picks one.
 */
import { adminMain } from '@kb/knowledge';
import { CATALOG_USAGE, catalogAdminMain } from '@kb/catalog';
import { readStartState } from './state';

/** `products …` and `reindex products` belong to the catalog; everything else (including `reindex entries`) to knowledge. */
const isCatalogCommand = (args: string[]) =>
  args[0] === 'products' || (args[0] === 'reindex' && args[1] === 'products');

/** The value of `--kind` (either spelling), if given. */
function kindOption(args: string[]): string | undefined {
  const at = args.findIndex((a) => a === '--kind' || a.startsWith('--kind='));
  if (at < 0) return undefined;
  return args[at]!.startsWith('--kind=') ? args[at]!.slice('--kind='.length) : args[at + 1];
}

async function run(): Promise<number> {
  const args = process.argv.slice(2);
  const wantsHelp = args.length === 0 || args[0] === '--help' || args[0] === 'help';
  const state = readStartState();
  if (!process.env.MONGODB_URI && !wantsHelp) {
    const mongoUri = (state?.extra?.mongoUri as string | undefined) ?? state?.mongoUri;
    if (!mongoUri) {
      process.stderr.write(
        'admin: no running stack found for this checkout and MONGODB_URI is not set.\n' +
          '       Start the stack with `npm start` (in another terminal), or set MONGODB_URI.\n',
      );
      return 2;
    }
    process.env.MONGODB_URI = mongoUri;
  }
  const similarityAddr = process.env.SIMILARITY_GRPC_ADDR ?? (state?.extra?.similarityGrpcAddr as string | undefined);
  if (isCatalogCommand(args)) return catalogAdminMain(args, similarityAddr);
  if (args[0] === 'index') {
    // Knowledge first: it checks the arguments (a usage error stops here, reported once); it
    // does nothing for --kind products, as the catalog does nothing for --kind entries.
    const code = await adminMain(args);
    if (code !== 0 || kindOption(args) === 'entries') return code;
    return catalogAdminMain(args, similarityAddr);
  }
  if (similarityAddr) process.env.SIMILARITY_GRPC_ADDR = similarityAddr; // `reindex entries` reads it

  const code = await adminMain(args);
  if (wantsHelp) process.stdout.write(`${CATALOG_USAGE}\n`);
  return code;
}

void run().then((code) => process.exit(code));
