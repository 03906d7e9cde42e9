/**
 * `npm run admin -- …`: the knowledge service's admin CLI, pointed at the backends of this
 * checkout's running `npm start` when MONGODB_URI is not set, so no extra flags are needed.
 */
import { adminMain } from '@kb/knowledge';
import { readStartState } from './state';

async function run(): Promise<number> {
  const args = process.argv.slice(2);
  const wantsHelp = args.length === 0 || args[0] === '--help' || args[0] === 'help';
  if (!process.env.MONGODB_URI && !wantsHelp) {
    const state = readStartState();
    const mongoUri = (state?.extra?.mongoUri as string | undefined) ?? state?.mongoUri;
    if (!mongoUri) {
      process.stderr.write('admin: no running stack found for this checkout and MONGODB_URI is not set.\n' +
        '       Start the stack with `npm start` (in another terminal), or set MONGODB_URI.\n');
      return 2;
    }
    process.env.MONGODB_URI = mongoUri;
  }
  return adminMain(args);
}

void run().then((code) => process.exit(code));
