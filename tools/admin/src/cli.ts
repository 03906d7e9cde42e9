/**
 * The admin CLI (`npm run admin -- …`): one command tree over the services' admin operations
 * (@kb/knowledge: tenants, tokens, entries; @kb/catalog: products), the stand-in for the
 * product's administration interface and the way a new user gets a token.
 *
 * MONGODB_URI says where the data is, else this checkout's running `npm start`; the similarity
 * service (reindex, and indexing during an import) is SIMILARITY_GRPC_ADDR, else the running
 * stack's, else its default address. Exit codes: 0 done, 1 failed, 2 usage error (the message
 * and the command's help on stderr). `token create` prints the token alone on the last line of
 * stdout, so scripts can take it with `tail -n 1`.
 */
import mongoose from 'mongoose';
import { Command, CommanderError } from 'commander';
import { catalogAdmin } from '@kb/catalog';
import { clientOptionsOf, mongoSettingsOf } from '@kb/mongo';
import { ConfigError, defaultGrpcAddress, loadMongoSettings, type CallerSigner } from '@kb/platform';
import { knowledgeAdmin } from '@kb/knowledge';
import { CliError, UsageError, type AdminContext } from './context';
import { indexCommands } from './commands/index-errors';
import { productsCommands } from './commands/products';
import { reindexCommand } from './commands/reindex';
import { tenantCommands } from './commands/tenant';
import { tokenCommands } from './commands/token';
import * as discovery from './discovery';
import { commandPath, everyCommand, fromCommander, HelpShown, treeHelp } from './help';

export { CliError, UsageError, type AdminContext } from './context';

/** The whole command tree; `setCode` raises the exit code (a command that finished with failures). */
export function buildProgram(ctx: AdminContext, setCode: (code: number) => void): Command {
  const program = new Command('admin')
    .description('Administration of the knowledge service: tenants, API tokens, search indexes and the catalogue.')
    .addCommand(tenantCommands(ctx))
    .addCommand(tokenCommands(ctx))
    .addCommand(indexCommands(ctx))
    .addCommand(reindexCommand(ctx, setCode))
    .addCommand(productsCommands(ctx, setCode));
  program.addHelpText('after', () => `\n${treeHelp(program)}`);
  for (const cmd of everyCommand(program)) {
    if (cmd.commands.length === 0) continue;
    cmd.helpCommand(true);
    // A group alone (`admin`, `admin tenant`): its help, as a usage error; `admin` alone shows the whole tree on stdout.
    cmd.action(() => {
      if (cmd === program) {
        program.outputHelp();
        setCode(2);
        return;
      }
      const names = cmd.commands.map((c) => c.name()).join('|');
      throw new UsageError(`Missing command: admin ${commandPath(cmd).join(' ')} <${names}>`);
    });
  }
  return program;
}

/**
 * Runs one command line against `ctx`; resolves to the exit code (0, or 1 when a command
 * finished with failures, 2 for `admin` alone). Throws a UsageError for a wrong command line
 * (with the help of the command concerned) and whatever a command failed with otherwise.
 */
export async function runCommandLine(
  argv: string[],
  ctx: AdminContext,
  writeOut: (text: string) => void,
): Promise<number> {
  let code = 0;
  const program = buildProgram(ctx, (c) => (code = Math.max(code, c)));
  for (const cmd of everyCommand(program)) {
    cmd.exitOverride((err: CommanderError) => {
      throw fromCommander(err, cmd);
    });
    cmd.configureOutput({ writeOut, writeErr: (text) => ctx.stderr.write(text), outputError: () => undefined });
  }
  let current: Command = program;
  program.hook('preAction', (_program, action) => {
    current = action;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof HelpShown) return err.exitCode;
    if (err instanceof UsageError && err.help === undefined) {
      throw new UsageError(err.message, current.helpInformation());
    }
    throw err;
  }
  return code;
}

export interface RunAdminOptions {
  connection: mongoose.Connection;
  /** One line of standard output (help text included). */
  out(line: string): void;
  /** Default: process.stderr. */
  stderr?: NodeJS.WritableStream;
  /** Default: SIMILARITY_GRPC_ADDR, else the similarity service's default address. */
  similarityAddr?: string;
  /** The bound on the catalog's calls to the similarity service (default 30 s). */
  deadlineMs?: number;
  /** Signs the calls to the similarity service. Default: SERVICE_SYSTEM_SECRET's signer. */
  signer?: CallerSigner;
}

/**
 * A command line in-process on an open connection (the dev stack and the tests): resolves to
 * the exit code, throws a UsageError for a wrong command line and what a command failed with.
 */
export function runAdmin(argv: string[], options: RunAdminOptions): Promise<number> {
  const ctx = context(() => Promise.resolve(options.connection), {
    out: options.out,
    stderr: options.stderr ?? process.stderr,
    similarityAddr: () =>
      options.similarityAddr ?? (process.env.SIMILARITY_GRPC_ADDR || defaultGrpcAddress('similarity')),
    signer: () => options.signer ?? discovery.signer(),
    ...(options.deadlineMs ? { deadlineMs: options.deadlineMs } : {}),
  });
  return runCommandLine(argv, ctx, (text) => {
    for (const line of text.replace(/\n$/, '').split('\n')) options.out(line);
  });
}

function context(
  connection: () => Promise<mongoose.Connection>,
  rest: Omit<AdminContext, 'knowledge' | 'catalog' | 'database'>,
): AdminContext {
  let knowledge: ReturnType<AdminContext['knowledge']> | undefined;
  let catalog: ReturnType<AdminContext['catalog']> | undefined;
  return {
    ...rest,
    knowledge: () => (knowledge ??= connection().then(knowledgeAdmin)),
    catalog: () => (catalog ??= connection().then(catalogAdmin)),
    database: async () => {
      const db = (await connection()).db;
      if (!db) throw new CliError('MongoDB connection has no database', 1);
      return db;
    },
  };
}

const redact = (uri: string) => uri.replace(/\/\/[^@/]*@/, '//***@');

async function connect(): Promise<mongoose.Connection> {
  const uri = discovery.mongoUri();
  if (!uri) {
    throw new CliError(
      'no running stack found for this checkout and MONGODB_URI is not set.\n' +
        '       Start the stack with `npm start` (in another terminal), or set MONGODB_URI.',
      2,
    );
  }
  // The services' MONGODB_* settings (write concern, read concern and preference, pool, selection timeout).
  let options: mongoose.ConnectOptions;
  try {
    options = clientOptionsOf(mongoSettingsOf(loadMongoSettings()));
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, 2);
    throw err;
  }
  const connection = mongoose.createConnection();
  try {
    await connection.openUri(uri, {
      ...options,
      serverSelectionTimeoutMS: Math.max(options.serverSelectionTimeoutMS ?? 0, 5000),
    });
  } catch (err) {
    await connection.close().catch(() => undefined);
    throw new CliError(`cannot reach MongoDB at ${redact(uri)}: ${(err as Error).message}`, 1);
  }
  return connection;
}

/** The CLI as a process: the exit code of `argv` (the arguments after the program). */
export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  let connection: Promise<mongoose.Connection> | undefined;
  const ctx = context(() => (connection ??= connect()), {
    out: (line) => process.stdout.write(`${line}\n`),
    stderr: process.stderr,
    similarityAddr: () => discovery.similarityAddr(),
    signer: () => discovery.signer(),
  });
  try {
    return await runCommandLine(argv, ctx, (text) => process.stdout.write(text));
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`admin: ${err.message}\n${err.help ? `\n${err.help}` : ''}`);
      return err.exitCode;
    }
    process.stderr.write(`admin: ${(err as Error)?.message ?? String(err)}\n`);
    if (process.env.KB_DEBUG && !(err instanceof CliError)) process.stderr.write(`${(err as Error)?.stack}\n`);
    return err instanceof CliError ? err.exitCode : 1;
  } finally {
    const open = await connection?.catch(() => undefined);
    await open?.close();
  }
}
