import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { Presets, SingleBar } from 'cli-progress';
import { UsageError, type AdminContext } from '../context';
import { requiredOption } from '../options';

/** `products import`: the catalogue from a JSON-lines file into a site, with a progress bar on stderr. */
export function productsCommands(ctx: AdminContext, setCode: (code: number) => void): Command {
  const products = new Command('products').description("the catalogue's products");

  products
    .command('import')
    .description(
      'upsert the products of a JSON-lines file (one product a line) into a site by external id; ' +
        'bad lines are reported on stderr with their line numbers, and make it exit 1',
    )
    .argument('<file.jsonl>', 'the products, one JSON object a line')
    .addOption(requiredOption('--tenant <tenant-id>', 'the tenant'))
    .addOption(requiredOption('--site <slug-or-uuid>', 'the site the products belong to'))
    .action(async (file: string, opts: { tenant: string; site: string }) => {
      const catalog = await ctx.catalog();
      const site = await catalog.findSite(opts.tenant, opts.site);
      if (!site) throw new UsageError(`Site "${opts.site}" not found in tenant "${opts.tenant}"`);
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (err) {
        throw new UsageError(`Cannot read ${file}: ${(err as Error).message}`);
      }
      const bar = new SingleBar(
        {
          stream: ctx.stderr,
          format: 'import |{bar}| {value}/{total} products | {percentage}% | ETA {eta}s',
          hideCursor: false,
        },
        Presets.shades_classic,
      );
      // Without the system credential the products stay queued for the running catalog's indexer.
      const sign = ctx.signer();
      const { lines, counts, problems } = await catalog.importProducts({
        tenantId: opts.tenant,
        site,
        text,
        ...(sign ? { similarity: { address: ctx.similarityAddr(), sign } } : {}),
        ...(ctx.deadlineMs ? { deadlineMs: ctx.deadlineMs } : {}),
        onStart: (total) => bar.start(total, 0),
        onProgress: (done) => bar.update(done),
      });
      bar.stop();
      for (const p of problems) ctx.stderr.write(`line ${p.line}: ${p.path || '(line)'}: ${p.msg}\n`);
      ctx.out(
        `Imported ${lines} lines into site "${site.slug}" of tenant "${opts.tenant}": ${counts.created} created, ` +
          `${counts.updated} updated, ${counts.unchanged} unchanged, ${counts.error} failed; ` +
          `embeddings ${counts.recomputed} recomputed, ${counts.skipped} skipped, ${counts.pending} pending`,
      );
      setCode(counts.error > 0 ? 1 : 0);
    });

  return products;
}
