import { Command } from 'commander';
import { Presets, SingleBar } from 'cli-progress';
import { defaultGrpcAddress, type Logger } from '@kb/platform';
import { kindsOf, systemSigner, UsageError, type AdminContext } from '../context';
import { kindOption, similarityAddress } from '../options';

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
async function reindexEntries(ctx: AdminContext, similarityAddr: string): Promise<number> {
  const result = await (
    await ctx.knowledge()
  ).reindexEntries({
    similarity: { address: similarityAddr, sign: systemSigner(ctx, 'reindex') },
    logger: stderrLogger(ctx.stderr),
    onBegun: (target) => ctx.out(`Reindexing entries into ${target.index} (alias ${target.alias})`),
    onPage: (done) => ctx.out(`  ${done} entries`),
  });
  if (!result.finished) {
    throw new Error(
      `${result.failed} of ${result.done} entries could not be indexed${result.error ? ` (${result.error})` : ''}; ` +
        'the alias still points at the old index',
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
async function reindexProducts(ctx: AdminContext, similarityAddr: string): Promise<number> {
  const bar = new SingleBar(
    { stream: ctx.stderr, format: 'reindex |{bar}| {value}/{total} products', hideCursor: false },
    Presets.shades_classic,
  );
  const result = await (
    await ctx.catalog()
  ).reindexProducts({
    similarity: { address: similarityAddr, sign: systemSigner(ctx, 'reindex') },
    ...(ctx.deadlineMs ? { deadlineMs: ctx.deadlineMs } : {}),
    onBegun: (target) => bar.start(target.total, 0),
    onPage: (done) => bar.update(done),
  });
  bar.stop();
  if (!result.finished) {
    ctx.stderr.write(
      `reindex: ${result.failed} products could not be indexed${result.error ? ` (${result.error})` : ''}; ` +
        'the alias still points at the old index\n',
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
    .description('rebuild the search index of entries, products or both from MongoDB, then swap the alias')
    .argument('[kind]', 'entries or products (the same as --kind)')
    .addOption(kindOption())
    .option(
      '--similarity <host:port>',
      `the similarity service (default: SIMILARITY_GRPC_ADDR, else the running stack's, else ${defaultGrpcAddress('similarity')})`,
    )
    .action(async (kind: string | undefined, opts: { kind?: string; similarity?: string }) => {
      if (kind !== undefined && opts.kind !== undefined && kind !== opts.kind)
        throw new UsageError(`reindex was given two kinds: "${kind}" and --kind "${opts.kind}"`);
      const kinds = kindsOf(kind ?? opts.kind);
      const address = similarityAddress(opts.similarity ?? ctx.similarityAddr());
      for (const k of kinds) {
        const code = k === 'entries' ? await reindexEntries(ctx, address) : await reindexProducts(ctx, address);
        setCode(code);
      }
    });
}
