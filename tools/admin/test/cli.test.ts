/**
 * The admin CLI's command tree without backends: help at every level, the command line's
 * mistakes as usage errors (exit 2) before anything is connected, and which service operation
 * each spelling reaches (the operations stubbed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import type { CatalogAdmin } from '@kb/catalog';
import type { KnowledgeAdmin } from '@kb/knowledge';
import { buildProgram, main, runCommandLine, UsageError, type AdminContext } from '../src';
import { commandPath, everyCommand } from '../src/help';

interface Run {
  code?: number;
  error?: unknown;
  stdout: string;
  stderr: string;
  calls: string[];
}

const noBackend = () => Promise.reject(new Error('no backend in a unit test'));

/** Runs a command line on stubbed operations (`knowledge`, `catalog`: the ones a test needs; any other rejects). */
async function run(
  argv: string[],
  stubs: { knowledge?: Partial<KnowledgeAdmin>; catalog?: Partial<CatalogAdmin> } = {},
): Promise<Run> {
  const result: Run = { stdout: '', stderr: '', calls: [] };
  const record = <T extends object>(name: string, ops: T | undefined) =>
    ops
      ? Promise.resolve(
          new Proxy(ops, {
            get(target, prop) {
              if (prop === 'then') return undefined; // not a promise itself
              const op = (target as Record<string | symbol, unknown>)[prop];
              if (typeof op !== 'function')
                return () => Promise.reject(new Error(`${name}.${String(prop)} not stubbed`));
              return (...args: unknown[]) => {
                result.calls.push(`${name}.${String(prop)}`);
                return op(...args);
              };
            },
          }),
        )
      : noBackend();
  const ctx: AdminContext = {
    out: (line) => (result.stdout += `${line}\n`),
    stderr: new Writable({
      write(chunk: Buffer, _enc, done) {
        result.stderr += chunk.toString();
        done();
      },
    }),
    knowledge: () => record('knowledge', stubs.knowledge) as Promise<KnowledgeAdmin>,
    catalog: () => record('catalog', stubs.catalog) as Promise<CatalogAdmin>,
    database: noBackend,
    similarityAddr: () => '127.0.0.1:1',
    // The stubs call no service: any signer will do.
    signer: () => async () => 'assertion',
  };
  try {
    result.code = await runCommandLine(argv, ctx, (text) => (result.stdout += text));
  } catch (err) {
    result.error = err;
  }
  return result;
}

const program = buildProgram(
  {
    out: () => undefined,
    stderr: process.stderr,
    knowledge: noBackend,
    catalog: noBackend,
    database: noBackend,
    similarityAddr: () => '',
    signer: () => undefined,
  },
  () => undefined,
);
const commands = everyCommand(program);
const leaves = commands.filter((c) => c.commands.length === 0).map((c) => commandPath(c).join(' '));

describe('help', () => {
  test('the tree has the same commands for entries and products', () => {
    expect(leaves).toEqual([
      'tenant create',
      'tenant settings',
      'tenant export',
      'tenant import',
      'tenant purge',
      'token create',
      'token revoke',
      'index errors',
      'index retry',
      'reindex',
      'products import',
    ]);
  });

  test('when `--help` is given to the program, then it prints every command with its arguments and options, and exits 0', async () => {
    const { code, stdout, stderr } = await run(['--help']);
    expect([code, stderr]).toEqual([0, '']);
    expect(stdout).toMatch(/^Usage: admin \[options\] \[command\]/);
    expect(stdout).toContain('admin tenant create <tenant-id> [--host <hostname> ...] [--name <text>] [--if-missing]');
    expect(stdout).toContain('admin tenant settings --tenant <tenant-id> [--set <key=value> ...]');
    expect(stdout).toContain(
      'admin token create --tenant <tenant-id> --role <Admin|Supervisor|Agent|Viewer> [--user <uuid>]',
    );
    expect(stdout).toContain('[--workspace <uuid> ...]');
    expect(stdout).toContain('admin token revoke <token-id-or-prefix> --tenant <tenant-id>');
    expect(stdout).toContain('admin index errors [--tenant <tenant-id>] [--kind <entries|products>]');
    expect(stdout).toContain('admin index retry [id ...] [--tenant <tenant-id>] [--kind <entries|products>]');
    expect(stdout).toContain('admin reindex [kind] [--kind <entries|products>] [--similarity <host:port>]');
    expect(stdout).toContain('admin products import <file.jsonl> --tenant <tenant-id> --site <slug-or-uuid>');
    expect(stdout).toContain('admin tenant export --tenant <tenant-id> --out <file.jsonl>');
    expect(stdout).toContain('admin tenant import --file <file.jsonl> [--if-missing]');
    expect(stdout).toContain('admin tenant purge --tenant <tenant-id> [--yes]');
    expect(stdout).toContain('[--resume]');
    for (const line of stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(120);
  });

  test.each(commands.filter((c) => c.parent).map((c) => commandPath(c).join(' ')))(
    'when `%s --help` runs, then its help is printed and it exits 0',
    async (command) => {
      const { code, stdout, stderr } = await run([...command.split(' '), '--help']);
      expect([code, stderr]).toEqual([0, '']);
      expect(stdout).toMatch(new RegExp(`^Usage: admin ${command} `));
      // The e2e tests take a line starting with "at" after spaces for a stack trace.
      expect(stdout).not.toMatch(/\n\s+at /);
    },
  );

  test('when `help <group> <command>` is used, then it is the same as `--help`', async () => {
    expect((await run(['help', 'token'])).stdout).toBe((await run(['token', '--help'])).stdout);
    expect((await run(['token', 'help', 'create'])).stdout).toBe((await run(['token', 'create', '--help'])).stdout);
  });

  test('when no command is given, then the whole tree is printed on stdout and it exits 2', async () => {
    const { code, stdout } = await run([]);
    expect(code).toBe(2);
    expect(stdout).toContain('admin products import <file.jsonl>');
  });

  test('when a group is given without its command, then a usage error names the commands it has', async () => {
    const { error } = await run(['tenant']);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe('Missing command: admin tenant <create|settings|export|import|purge>');
    expect((error as UsageError).help).toMatch(/^Usage: admin tenant /);
  });
});

describe('usage errors, found before any backend is asked', () => {
  test.each([
    [['fly', 'away'], /^Unknown command "fly"$/],
    [['tenant', 'fly'], /^Unknown command "tenant fly"$/],
    [['tenant', 'create'], /^tenant create takes exactly one <tenant-id>$/],
    [['tenant', 'create', 'a', 'b'], /^tenant create takes exactly one <tenant-id>$/],
    [['tenant', 'create', 'Bad_Tenant'], /^Invalid tenant id "Bad_Tenant"/],
    [['tenant', 'settings'], /^--tenant <tenant-id> is required$/],
    [['tenant', 'settings', '--tenant', 'acme', 'extra'], /^Unexpected argument "extra"$/],
    [['token', 'create', '--tenant', 'acme'], /^--role <Admin\|Supervisor\|Agent\|Viewer> is required$/],
    [['token', 'create', '--tenant', 'acme', '--role', 'Admin', '--colour', 'red'], /^Unknown option '--colour'/],
    [['token', 'create', '--tenant', 'acme', '--role'], /^Option '--role <.*>' argument missing$/],
    [['token', 'revoke', '--tenant', 'acme'], /^token revoke takes exactly one <token-id-or-prefix>$/],
    [['index', 'errors', '--kind', 'orders'], /^--kind must be entries or products, got "orders"$/],
    [['index', 'errors', 'x'], /^Unexpected argument "x"$/],
    [['index', 'retry', '--kind=orders', 'x'], /^--kind must be entries or products, got "orders"$/],
    [['index', 'retry', '--tenant', 'Nope!'], /^Invalid tenant id "Nope!"/],
    [['reindex', 'orders'], /^--kind must be entries or products, got "orders"$/],
    [['reindex', 'entries', '--kind', 'products'], /two kinds/],
    [['reindex', 'entries', 'products'], /^Unexpected argument "products"$/],
    [['reindex', 'entries', '--similarity', 'nope'], /^--similarity must be host:port, got "nope"$/],
    [['products', 'import', '--site', 'shop', 'f.jsonl'], /^--tenant <tenant-id> is required$/],
    [['products', 'import', '--tenant', 'acme', 'f.jsonl'], /^--site <slug-or-uuid> is required$/],
    [['products', 'import', '--tenant', 'acme', '--site', 'shop'], /^products import takes exactly one <file.jsonl>$/],
  ])('when run with %j, then a usage error %p', async (argv, message) => {
    const { error, stdout } = await run(argv);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).message).toMatch(message);
    expect((error as UsageError).help).toMatch(/^Usage: admin /);
    expect(stdout).toBe('');
  });
});

describe('the same commands for entries and products', () => {
  const finished = (kind: string) => ({
    index: `${kind}-2`,
    alias: kind,
    done: 3,
    indexed: 3,
    refused: 0,
    failed: 0,
    finished: { removed_indices: [`${kind}-1`], requeued: 0 },
  });
  const knowledge: Partial<KnowledgeAdmin> = {
    reindexEntries: async (input) => {
      input.onBegun?.({ index: 'entries-2', alias: 'entries' });
      return finished('entries');
    },
    entryIndexErrors: async () => [],
    retryEntryIndexErrors: async () => 0,
  };
  const catalog: Partial<CatalogAdmin> = {
    reindexProducts: async () => finished('products'),
    productIndexErrors: async () => [],
    retryProductIndexErrors: async () => 2,
  };

  test.each([
    [['reindex'], ['knowledge.reindexEntries', 'catalog.reindexProducts']],
    [['reindex', 'entries'], ['knowledge.reindexEntries']],
    [['reindex', '--kind', 'entries'], ['knowledge.reindexEntries']],
    [['reindex', 'products'], ['catalog.reindexProducts']],
    [['reindex', '--kind=products'], ['catalog.reindexProducts']],
    [
      ['index', 'errors'],
      ['knowledge.entryIndexErrors', 'catalog.productIndexErrors'],
    ],
    [['index', 'errors', '--kind', 'products'], ['catalog.productIndexErrors']],
    [['index', 'retry', '--kind', 'entries', 'id-1'], ['knowledge.retryEntryIndexErrors']],
    [
      ['index', 'retry', 'id-1', 'id-2'],
      ['knowledge.retryEntryIndexErrors', 'catalog.retryProductIndexErrors'],
    ],
  ])('when run with %j, then it calls %j', async (argv, calls) => {
    const result = await run(argv, { knowledge, catalog });
    expect(result.error).toBeUndefined();
    expect(result.code).toBe(0);
    expect(result.calls).toEqual(calls);
  });

  test('when both kinds are reindexed, then each says what it did, entries first', async () => {
    const { stdout } = await run(['reindex'], { knowledge, catalog });
    expect(stdout.trimEnd().split('\n')).toEqual([
      'Reindexing entries into entries-2 (alias entries)',
      'Reindexed 3 entries (0 failed); alias entries -> entries-2; removed entries-1; 0 written meanwhile are queued for the indexer',
      'Reindexed 3 products into products-2 (alias products); 0 written meanwhile are queued for the indexer',
    ]);
  });

  test('when both kinds are retried for a tenant, then each kind says how many it queued and who takes them', async () => {
    const { stdout } = await run(['index', 'retry', '--tenant', 'acme'], { knowledge, catalog });
    expect(stdout.trimEnd().split('\n')).toEqual([
      "Queued 0 refused entries for indexing again in tenant acme (the running knowledge service's indexer takes them)",
      "Queued 2 refused products for indexing again in tenant acme (the running catalog's indexer takes them)",
    ]);
  });
});

describe('main: the CLI as a process', () => {
  const writes = { stdout: '', stderr: '' };
  let cacheDir: string;
  const saved = { ...process.env };
  beforeEach(() => {
    writes.stdout = writes.stderr = '';
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((writes.stdout += String(chunk)), true));
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((writes.stderr += String(chunk)), true));
    cacheDir = mkdtempSync(path.join(tmpdir(), 'kb-admin-test-'));
    process.env.KB_CACHE_DIR = cacheDir; // no `npm start` runs from here
    delete process.env.MONGODB_URI;
  });
  afterEach(() => {
    jest.restoreAllMocks();
    process.env = { ...saved };
    rmSync(cacheDir, { recursive: true, force: true });
  });

  test('when `--help` is given, then the tree is on stdout and the code is 0', async () => {
    expect(await main(['--help'])).toBe(0);
    expect(writes.stdout).toContain('Every command:');
    expect(writes.stderr).toBe('');
  });

  test('when the command line is wrong, then the message and the command help go to stderr, and the code is 2', async () => {
    expect(await main(['tenant', 'create', 'Bad_Tenant'])).toBe(2);
    expect(writes.stderr).toMatch(/^admin: Invalid tenant id "Bad_Tenant".*\n\nUsage: admin tenant create /);
    expect(writes.stdout).toBe('');
  });

  test('when neither MONGODB_URI nor a running stack is there, then it says so and the code is 2', async () => {
    expect(await main(['tenant', 'create', 'acme'])).toBe(2);
    expect(writes.stderr).toMatch(/^admin: no running stack found for this checkout and MONGODB_URI is not set\./);
  });
});
