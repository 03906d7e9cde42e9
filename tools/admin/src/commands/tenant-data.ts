/**
 * `tenant export`, `tenant import`, `tenant purge`: a tenant's data as a whole (the file's
 * format: ../tenant-archive.ts). Long work shows progress on stderr.
 */
import { existsSync } from 'node:fs';
import { Command } from 'commander';
import type { mongo } from 'mongoose';
import { holdingLease, mongoLeases, type LeaseDoc } from '@kb/mongo';
import { defaultGrpcAddress, similarityClientAt, systemCaller, type similarityV1 } from '@kb/platform';
import { CliError, systemSigner, UsageError, type AdminContext } from '../context';
import { noSuchTenant, requiredOption, similarityAddress, tenantId } from '../options';
import { progress } from '../progress';
import {
  ArchiveError,
  checkArchive,
  LeaseLostError,
  exportTenant,
  forgetPurge,
  importTenant,
  purgeTenantDocuments,
  recentPurge,
  recordPurge,
  sum,
  tenantCounts,
} from '../tenant-archive';
import { reindexEntries, reindexProducts } from './reindex';

const listed = (counts: Record<string, number>) =>
  Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([name, n]) => `${n} ${name}`)
    .join(', ') || 'nothing';

/** The bound on a purge's call to the similarity service: a delete-by-query over every index. */
const PURGE_DEADLINE_MS = 300_000;

/** How long an import's or purge's lease lasts without renewal (renewed every third of it while the command runs). */
const TENANT_DATA_LEASE_MS = 60_000;

/**
 * Runs `work` holding the tenant's data lease (`tenant-data/<tenant>` in `knowledge_leases`, the
 * collection of the skill index's leases): one import or purge of a tenant at a time, whoever
 * runs them. Without it two imports of one file would both pass the checks, and the one that
 * failed on the other's documents would undo them. The lease document names no tenant, so a
 * purge leaves it.
 */
async function holdingTenantData<T>(
  db: mongo.Db,
  tenant: string,
  work: (lost: () => boolean) => Promise<T>,
): Promise<T> {
  const leases = mongoLeases(db.collection<LeaseDoc>('knowledge_leases'));
  const run = await holdingLease(leases, `tenant-data/${tenant}`, '', TENANT_DATA_LEASE_MS, work);
  if (run.held) return run.result;
  throw new CliError(
    `another import or purge of tenant "${tenant}" is running` +
      (run.holder ? ` (${run.holder.owner}, its lease until ${run.holder.until.toISOString()})` : '') +
      '; nothing was changed',
    1,
  );
}

/** The tenant's documents in the search indices, counted (dryRun) or removed, through the similarity service. */
async function searchIndexPurge(
  ctx: AdminContext,
  address: string,
  tenant: string,
  dryRun: boolean,
): Promise<similarityV1.PurgedIndex__Output[]> {
  const similarity = similarityClientAt(address, PURGE_DEADLINE_MS, systemSigner(ctx, 'tenant purge'));
  try {
    const res = await similarity.call('PurgeTenant', {
      caller: systemCaller('admin', ''),
      tenant_id: tenant,
      dry_run: dryRun,
    });
    return res.indices;
  } finally {
    similarity.close();
  }
}

export function tenantDataCommands(tenant: Command, ctx: AdminContext): void {
  tenant
    .command('export')
    .description(
      'write everything the tenant owns in MongoDB (tenant, settings, hosts, categories, entries with their ' +
        'versions, personal notes, skill index, sites, products) to one JSON-lines file; never API tokens',
    )
    .addOption(requiredOption('--tenant <tenant-id>', 'the tenant'))
    .addOption(requiredOption('--out <file.jsonl>', 'the file to write (must not exist)'))
    .action(async (opts: { tenant: string; out: string }) => {
      const id = tenantId(opts.tenant);
      if (existsSync(opts.out)) throw new UsageError(`--out ${opts.out} already exists; name a new file`);
      if (!(await (await ctx.knowledge()).findTenant(id))) throw noSuchTenant(id);
      const bar = progress(ctx, 'export', 'documents');
      const header = await exportTenant(await ctx.database(), id, opts.out, bar).finally(() => bar.stop());
      ctx.out(`Exported tenant ${id} to ${opts.out}: ${listed(header.counts)} (API tokens are never exported)`);
    });

  tenant
    .command('import')
    .description(
      'load a tenant export into this install, which must not have that tenant: ids, versions and timestamps kept; ' +
        'the whole file is checked before anything is written; entries and products are queued for the running indexers ' +
        '(a tenant purged from this install within the hour: both search indices are rebuilt instead)',
    )
    .addOption(requiredOption('--file <file.jsonl>', 'a file written by `admin tenant export`'))
    .option('--if-missing', 'when the tenant already exists, skip the import and succeed')
    .option(
      '--similarity <host:port>',
      'the similarity service, for the rebuild after a recent purge (default: SIMILARITY_GRPC_ADDR, else the ' +
        `running stack's, else ${defaultGrpcAddress('similarity')})`,
    )
    .action(async (opts: { file: string; ifMissing?: boolean; similarity?: string }) => {
      if (!existsSync(opts.file)) throw new UsageError(`--file ${opts.file} does not exist`);
      let checked: Awaited<ReturnType<typeof checkArchive>>;
      try {
        checked = await checkArchive(opts.file);
      } catch (err) {
        if (err instanceof ArchiveError) throw new CliError(`--file ${err.message}; nothing was imported`, 2);
        throw err;
      }
      const { header, tenant: tenantDoc } = checked;
      const id = header.tenant;
      const knowledge = await ctx.knowledge();
      await ctx.catalog(); // the collections' indexes exist before the first insert
      const db = await ctx.database();
      await holdingTenantData(db, id, async (lost) => {
        const present = await tenantCounts(db, id);
        if (present.tenants) {
          if (opts.ifMissing) {
            ctx.out(`Tenant ${id} already exists; import skipped (--if-missing)`);
            return;
          }
          throw new CliError(
            `tenant "${id}" already exists in this install; import never overwrites a tenant ` +
              `(purge it first with \`admin tenant purge --tenant ${id} --yes\`, or give --if-missing to skip)`,
            1,
          );
        }
        if (sum(present) > 0)
          throw new CliError(
            `this install holds ${listed(present)} of tenant "${id}" without the tenant itself (a purge that did not finish?); ` +
              `run \`admin tenant purge --tenant ${id} --yes\` first`,
            1,
          );
        const hosts = Array.isArray(tenantDoc.hosts) ? (tenantDoc.hosts as string[]) : [];
        const taken = await knowledge.hostTakenByOther(hosts, id);
        if (taken)
          throw new CliError(
            `host "${taken}" of tenant "${id}" already belongs to another tenant; nothing was imported`,
            1,
          );
        const bar = progress(ctx, 'import', 'documents');
        const inserted = await importTenant(db, opts.file, header, bar, lost)
          .catch((err: unknown) => {
            if (err instanceof LeaseLostError) throw new CliError(`${err.message}; the import was undone`, 1);
            throw err;
          })
          .finally(() => bar.stop());
        ctx.out(`Imported tenant ${id} from ${opts.file} (exported ${header.exported_at}): ${listed(inserted)}`);
        const purged = await recentPurge(db, id);
        if (!purged) {
          ctx.out(
            `Queued ${inserted.knowledge_entries ?? 0} entries and ${inserted.products ?? 0} products for indexing ` +
              "(the running knowledge service's and catalog's indexers take them)",
          );
          return;
        }
        // Elasticsearch still holds the purged documents' versions (delete tombstones) and would take
        // the indexers' writes of the same versions for stale: new indices hold no tombstones.
        ctx.out(`Tenant ${id} was purged from the search indices at ${purged.toISOString()}: rebuilding them`);
        const address = similarityAddress(opts.similarity ?? ctx.similarityAddr());
        const codes = [
          await reindexEntries(ctx, address, { resume: false }),
          await reindexProducts(ctx, address, { resume: false }),
        ];
        if (codes.some((c) => c !== 0))
          throw new CliError('the import is written, but the search indices were not rebuilt: run `admin reindex`', 1);
        await forgetPurge(db, id);
      });
    });

  tenant
    .command('purge')
    .description(
      "remove the tenant's documents from MongoDB (every collection, API tokens included) and from the search indices; " +
        'without --yes, only show what would be removed',
    )
    .addOption(requiredOption('--tenant <tenant-id>', 'the tenant'))
    .option('--yes', 'remove them (without it nothing changes)')
    .option(
      '--similarity <host:port>',
      `the similarity service (default: SIMILARITY_GRPC_ADDR, else the running stack's, else ${defaultGrpcAddress('similarity')})`,
    )
    .action(async (opts: { tenant: string; yes?: boolean; similarity?: string }) => {
      const id = tenantId(opts.tenant);
      const address = similarityAddress(opts.similarity ?? ctx.similarityAddr());
      await ctx.knowledge();
      const db = await ctx.database();
      const inMongo = await tenantCounts(db, id);
      let inIndex: similarityV1.PurgedIndex__Output[];
      try {
        inIndex = await searchIndexPurge(ctx, address, id, true);
      } catch (err) {
        throw new CliError(
          `the search indices cannot be counted through the similarity service at ${address} ` +
            `(${(err as Error).message}); nothing was removed`,
          1,
        );
      }
      const indexed = inIndex.reduce((n, i) => n + Number(i.documents), 0);
      if (sum(inMongo) === 0 && indexed === 0)
        throw new UsageError(
          `Tenant "${id}" has nothing in this install (no documents in MongoDB or the search indices)`,
        );
      const indexLines = inIndex
        .filter((i) => Number(i.documents) > 0)
        .map((i) => `  Elasticsearch ${i.index}: ${i.documents}`);
      const mongoLines = Object.entries(inMongo)
        .filter(([, n]) => n > 0)
        .map(([name, n]) => `  MongoDB ${name}: ${n}`);
      if (!opts.yes) {
        ctx.out(
          `Tenant ${id}: a purge would remove ${sum(inMongo)} MongoDB documents and ${indexed} indexed documents:`,
        );
        for (const line of [...mongoLines, ...indexLines]) ctx.out(line);
        ctx.out('Nothing was removed (give --yes to remove them)');
        return;
      }
      await holdingTenantData(db, id, async (lost) => {
        const removed = await purgeTenantDocuments(db, id);
        // Past a lapsed lease an import may be writing the tenant again: its documents must not
        // be taken out of the search indices.
        if (lost())
          throw new CliError(
            `removed ${sum(removed)} MongoDB documents of tenant ${id}, but ${new LeaseLostError(id).message}; ` +
              'the search indices were not purged: run the purge again',
            1,
          );
        let fromIndex: similarityV1.PurgedIndex__Output[];
        try {
          fromIndex = await searchIndexPurge(ctx, address, id, false);
        } catch (err) {
          throw new CliError(
            `removed ${sum(removed)} MongoDB documents of tenant ${id}, but the search indices could not be purged ` +
              `(${(err as Error).message}); run the purge again`,
            1,
          );
        }
        const fromIndexCount = fromIndex.reduce((n, i) => n + Number(i.documents), 0);
        if (fromIndexCount > 0) await recordPurge(db, id);
        ctx.out(
          `Purged tenant ${id}: ${sum(removed)} MongoDB documents (${listed(removed)}) and ${fromIndexCount} indexed documents`,
        );
      });
    });
}
