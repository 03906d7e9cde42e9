import { Command } from 'commander';
import { indexErrorLine } from '@kb/indexing';
import { kindsOf, type AdminContext, type Kind } from '../context';
import { kindOption, tenantId, tenantOption } from '../options';

/** Who takes a re-queued document: the running service that indexes that kind. */
const INDEXER_OF: Record<Kind, string> = {
  entries: "the running knowledge service's indexer",
  products: "the running catalog's indexer",
};

/** `index errors`, `index retry`: the documents the search index refused, entries (knowledge) and products (catalog). */
export function indexCommands(ctx: AdminContext): Command {
  const index = new Command('index').description('documents the search index refused: list them, queue them again');

  index
    .command('errors')
    .description('list the documents the search index refused, with their version, attempts and reason')
    .addOption(tenantOption('only this tenant (default: all)'))
    .addOption(kindOption())
    .action(async (opts: { tenant?: string; kind?: string }) => {
      const kinds = kindsOf(opts.kind);
      const tenant = opts.tenant === undefined ? undefined : tenantId(opts.tenant);
      const scope = tenant ? ` in tenant ${tenant}` : '';
      for (const kind of kinds) {
        const refused =
          kind === 'entries'
            ? await (await ctx.knowledge()).entryIndexErrors({ ...(tenant ? { tenantId: tenant } : {}) })
            : await (await ctx.catalog()).productIndexErrors({ ...(tenant ? { tenantId: tenant } : {}) });
        for (const row of refused) ctx.out(indexErrorLine(kind, row));
        ctx.out(
          refused.length
            ? `${refused.length} ${kind} refused by the search index${scope}`
            : `No ${kind} refused by the search index${scope}`,
        );
      }
    });

  index
    .command('retry')
    .description('queue the refused documents (or only the given ids) for the running indexers again')
    .argument('[id...]', 'only these documents')
    .addOption(tenantOption('only this tenant (default: all)'))
    .addOption(kindOption())
    .action(async (ids: string[], opts: { tenant?: string; kind?: string }) => {
      const kinds = kindsOf(opts.kind);
      const tenant = opts.tenant === undefined ? undefined : tenantId(opts.tenant);
      const scope = tenant ? ` in tenant ${tenant}` : '';
      const input = { ids, ...(tenant ? { tenantId: tenant } : {}) };
      for (const kind of kinds) {
        const queued =
          kind === 'entries'
            ? await (await ctx.knowledge()).retryEntryIndexErrors(input)
            : await (await ctx.catalog()).retryProductIndexErrors(input);
        ctx.out(`Queued ${queued} refused ${kind} for indexing again${scope} (${INDEXER_OF[kind]} takes them)`);
      }
    });

  return index;
}
