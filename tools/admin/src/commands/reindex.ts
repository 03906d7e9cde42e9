import { Command } from 'commander';
import { defaultGrpcAddress, type Logger } from '@kb/platform';
import { kindsOf, systemSigner, UsageError, type AdminContext } from '../context';
import { kindOption, similarityAddress } from '../options';
import { progress } from '../progress';

interface RunOptions {
  resume: boolean;
  pageSize?: number;
}

function pageSize(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new UsageError(`--page-size must be a whole number from 1 to 1000, got "${value}"`);
  return n;
}

/** A page written again after a failure: a line on stderr. */
const retryLine = (ctx: AdminContext, kind: string) => (attempt: number, delayMs: number, error: string) =>
  ctx.stderr.write(
    `reindex: a page of ${kind} failed (${error}); writing it again in ${delayMs} ms (retry ${attempt})\n`,
  );

/** The CLI's stand-in for a service logger: a refusal met during a reindex is worth a line on stderr. */
const stderrLogger = (stderr: NodeJS.WritableStream) =>
  ({
    error: (fields: Record<string, unknown>, msg: string) =>
      stderr.write(`${msg}: ${fields.entry_id} (${fields.error})\n`),
  }) as unknown as Logger;

/**
 * Rebuilds the entries index from MongoDB. Searches keep using the old index until the swap;
 * with any entry not indexed (other than refused), there is no swap and the command fails.
 */
export async function reindexEntries(ctx: AdminContext, similarityAddr: string, run: RunOptions): Promise<number> {
  const result = await (
    await ctx.knowledge()
  ).reindexEntries({
    similarity: { address: similarityAddr, sign: systemSigner(ctx, 'reindex') },
    logger: stderrLogger(ctx.stderr),
    ...run,
    onBegun: (target) =>
      ctx.out(
        target.resumed
          ? `Resuming the reindex of entries into ${target.index} (alias ${target.alias}) after ${target.resumed.done} entries`
          : `Reindexing entries into ${target.index} (alias ${target.alias})`,
      ),
    onPage: (done) => ctx.out(`  ${done} entries`),
    onRetry: retryLine(ctx, 'entries'),
  });
  if (!result.finished) {
    throw new Error(
      `${result.failed} entries could not be indexed${result.error ? ` (${result.error})` : ''} after retries; ` +
        `the alias still points at the old index; ${result.done} are in ${result.index}: continue with \`admin reindex entries --resume\``,
    );
  }
  const { removed_indices: removed, requeued } = result.finished;
  ctx.out(
    `Reindexed ${result.indexed} entries (${result.refused} failed); alias ${result.alias} -> ${result.index}` +
      `${removed.length ? `; removed ${removed.join(', ')}` : ''}; ${requeued} written meanwhile are queued for the indexer`,
  );
  return 0;
}

/**
 * Rebuilds the products index from MongoDB, with a progress bar on stderr. A refused product is
 * recorded (index errors) and does not hold up the swap; anything else not indexed leaves the
 * alias on the old index and exits 1.
 */
export async function reindexProducts(ctx: AdminContext, similarityAddr: string, run: RunOptions): Promise<number> {
  const bar = progress(ctx, 'reindex', 'products');
  const result = await (
    await ctx.catalog()
  ).reindexProducts({
    similarity: { address: similarityAddr, sign: systemSigner(ctx, 'reindex') },
    ...(ctx.deadlineMs ? { deadlineMs: ctx.deadlineMs } : {}),
    ...run,
    onBegun: (target) => {
      if (target.resumed)
        ctx.out(`Resuming the reindex of products into ${target.index} after ${target.resumed.done} products`);
      bar.start(target.total, target.resumed?.done ?? 0);
    },
    onPage: (done) => bar.update(done),
    onRetry: retryLine(ctx, 'products'),
  });
  bar.stop();
  if (!result.finished) {
    ctx.stderr.write(
      `reindex: ${result.failed} products could not be indexed${result.error ? ` (${result.error})` : ''} after retries; ` +
        `the alias still points at the old index; ${result.done} are in ${result.index}: ` +
        'continue with `admin reindex products --resume`\n',
    );
    return 1;
  }
  ctx.out(
    `Reindexed ${result.done} products into ${result.index} (alias ${result.alias}); ` +
      `${result.finished.requeued} written meanwhile are queued for the indexer`,
  );
  if (result.refused > 0)
    ctx.out(`${result.refused} products were refused by the search index: see \`admin index errors --kind products\``);
  return 0;
}

/** `reindex [entries|products]`, `reindex --kind entries|products`: rebuilds a kind's search index (no kind: both). */
export function reindexCommand(ctx: AdminContext, setCode: (code: number) => void): Command {
  return new Command('reindex')
    .description(
      'rebuild the search index of entries, products or both from MongoDB, then swap the alias; progress is kept ' +
        'in MongoDB after every page, a failed page is written again 3 times with backoff, and --resume continues a run ' +
        'that crashed or gave up',
    )
    .argument('[kind]', 'entries or products (the same as --kind)')
    .addOption(kindOption())
    .option(
      '--similarity <host:port>',
      `the similarity service (default: SIMILARITY_GRPC_ADDR, else the running stack's, else ${defaultGrpcAddress('similarity')})`,
    )
    .option('--resume', 'continue the unfinished run from its last finished page (none unfinished: a new run)')
    .option('--page-size <n>', 'documents per page (default: 200 entries, 100 products)')
    .action(
      async (
        kind: string | undefined,
        opts: { kind?: string; similarity?: string; resume?: boolean; pageSize?: string },
      ) => {
        if (kind !== undefined && opts.kind !== undefined && kind !== opts.kind)
          throw new UsageError(`reindex was given two kinds: "${kind}" and --kind "${opts.kind}"`);
        const kinds = kindsOf(kind ?? opts.kind);
        const address = similarityAddress(opts.similarity ?? ctx.similarityAddr());
        for (const k of kinds) {
          const run = {
            resume: opts.resume === true,
            ...(opts.pageSize !== undefined ? { pageSize: pageSize(opts.pageSize) } : {}),
          };
          const code =
            k === 'entries' ? await reindexEntries(ctx, address, run) : await reindexProducts(ctx, address, run);
          setCode(code);
        }
      },
    );
}
