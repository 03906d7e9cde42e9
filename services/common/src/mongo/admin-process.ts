import mongoose from 'mongoose';

/**
 * An admin CLI as a process: usage on no arguments (exit 2) or help (exit 0), MONGODB_URI
 * connected, the command run, the connection closed. A usage error prints the usage and
 * exits 2, other failures print their message (the stack with KB_DEBUG) and exit 1.
 */
export async function runAdminProcess(options: {
  argv: string[];
  usage: string;
  /** The CLI's usage error class: its failures exit 2 with the usage. */
  isUsageError: (err: unknown) => boolean;
  /** Returns the exit code. */
  run: (connection: mongoose.Connection, out: (line: string) => void) => Promise<number>;
}): Promise<number> {
  const { argv, usage } = options;
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === 'help') {
    process.stdout.write(`${usage}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  const uri = process.env.MONGODB_URI;
  if (!uri) {
    process.stderr.write('admin: MONGODB_URI is not set (start the stack with `npm start`, or set MONGODB_URI)\n');
    return 2;
  }
  const connection = mongoose.createConnection();
  try {
    await connection.openUri(uri, { serverSelectionTimeoutMS: 5000 });
  } catch (err) {
    process.stderr.write(
      `admin: cannot reach MongoDB at ${uri.replace(/\/\/[^@/]*@/, '//***@')}: ${(err as Error).message}\n`,
    );
    return 1;
  }
  try {
    return await options.run(connection, (line) => process.stdout.write(`${line}\n`));
  } catch (err) {
    if (options.isUsageError(err)) {
      process.stderr.write(`admin: ${(err as Error).message}\n\n${usage}\n`);
      return 2;
    }
    process.stderr.write(`admin: ${(err as Error).message}\n`);
    if (process.env.KB_DEBUG) process.stderr.write(`${(err as Error).stack}\n`);
    return 1;
  } finally {
    await connection.close();
  }
}
