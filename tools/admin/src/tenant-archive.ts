/**
 * A tenant's export file (`admin tenant export|import`): JSON lines, a header first
 * ({format, version, tenant, exported_at, counts}), then one line per stored document,
 * {collection, document}, the document in MongoDB's Extended JSON (relaxed), so that dates and
 * Decimal128 prices come back as they were stored. Everything the tenant owns in MongoDB is
 * there except secrets (API tokens, hashes included) and this install's work in progress
 * (indexing queues, leases, locks): the services' declarations say which (KNOWLEDGE_ and
 * CATALOG_TENANT_COLLECTIONS).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { mongo } from 'mongoose';
import { CATALOG_TENANT_COLLECTIONS } from '@kb/catalog';
import { KNOWLEDGE_TENANT_COLLECTIONS, isTenantId } from '@kb/knowledge';
import {
  belongsToTenant,
  countTenantDocuments,
  deleteTenantDocuments,
  insertTenantDocuments,
  tenantDocuments,
  type TenantCollection,
} from '@kb/mongo';

export const ARCHIVE_FORMAT = 'kb-tenant-export';
export const ARCHIVE_VERSION = 1;

/** Every collection a tenant has documents in, the knowledge service's first (the tenant itself leads). */
export const TENANT_COLLECTIONS: readonly TenantCollection[] = [
  ...KNOWLEDGE_TENANT_COLLECTIONS,
  ...CATALOG_TENANT_COLLECTIONS,
];
const EXPORTED = TENANT_COLLECTIONS.filter((c) => c.exported);
const TENANTS = 'tenants';

export interface ArchiveHeader {
  format: typeof ARCHIVE_FORMAT;
  version: number;
  tenant: string;
  exported_at: string;
  /** Documents per exported collection. */
  counts: Record<string, number>;
}

/** A file that is not a tenant export this version reads; `line` where it went wrong (1-based). */
export class ArchiveError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    message: string,
  ) {
    super(`${file}${line ? `, line ${line}` : ''}: ${message}`);
    this.name = 'ArchiveError';
  }
}

const EJSON = mongo.BSON.EJSON;
/** Documents in all the collections of a count. */
export const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/** What the tenant has in MongoDB per collection, exported or not. */
export function tenantCounts(db: mongo.Db, tenantId: string): Promise<Record<string, number>> {
  return countTenantDocuments(db, TENANT_COLLECTIONS, tenantId);
}

/**
 * Writes the tenant's export to `file`: first to `<file>.partial`, renamed when complete, so a
 * failed export never leaves a file that looks whole. Answers the header written.
 */
export async function exportTenant(
  db: mongo.Db,
  tenantId: string,
  file: string,
  progress: { start(total: number): void; update(done: number): void },
): Promise<ArchiveHeader> {
  const counts = await countTenantDocuments(db, EXPORTED, tenantId);
  const header: ArchiveHeader = {
    format: ARCHIVE_FORMAT,
    version: ARCHIVE_VERSION,
    tenant: tenantId,
    exported_at: new Date().toISOString(),
    counts: { ...counts },
  };
  const partial = `${file}.partial`;
  const out = createWriteStream(partial, { encoding: 'utf8' });
  const write = async (line: string) => {
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  };
  try {
    await write(JSON.stringify(header));
    progress.start(sum(counts));
    let done = 0;
    for (const spec of EXPORTED) {
      let written = 0;
      for await (const document of tenantDocuments(db, spec, tenantId)) {
        await write(
          `{"collection":${JSON.stringify(spec.name)},"document":${EJSON.stringify(document, { relaxed: true })}}`,
        );
        written++;
        progress.update(++done);
      }
      // Written meanwhile (the services run on): the header counts what the file holds.
      header.counts[spec.name] = written;
    }
    out.end();
    await once(out, 'finish');
  } catch (err) {
    out.destroy();
    await rm(partial, { force: true });
    throw err;
  }
  if (sum(header.counts) !== sum(counts)) {
    // The counts moved during the export: rewrite the header line (the file is read back once more).
    await rewriteHeader(partial, header);
  }
  await rename(partial, file);
  return header;
}

/** Replaces the first line of `file` with `header` (via a second temporary file). */
async function rewriteHeader(file: string, header: ArchiveHeader): Promise<void> {
  const fixed = `${file}.header`;
  const out = createWriteStream(fixed, { encoding: 'utf8' });
  let first = true;
  for await (const line of createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity })) {
    const text = first ? JSON.stringify(header) : line;
    first = false;
    if (!out.write(`${text}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  await rename(fixed, file);
}

/** The file's lines after the header, parsed: {line number, collection, document}. */
async function* archiveLines(file: string): AsyncGenerator<{ line: number; text: string }, void, undefined> {
  let line = 0;
  const input = createReadStream(file, 'utf8');
  try {
    for await (const text of createInterface({ input, crlfDelay: Infinity })) {
      line++;
      if (text.trim() !== '') yield { line, text };
    }
  } finally {
    input.destroy();
  }
}

function parseHeader(file: string, text: string): ArchiveHeader {
  let header: unknown;
  try {
    header = JSON.parse(text);
  } catch {
    throw new ArchiveError(file, 1, 'not a tenant export: the first line is not JSON');
  }
  const h = header as Partial<ArchiveHeader> | null;
  if (!h || typeof h !== 'object' || h.format !== ARCHIVE_FORMAT)
    throw new ArchiveError(file, 1, `not a tenant export: the header's format is not "${ARCHIVE_FORMAT}"`);
  if (h.version !== ARCHIVE_VERSION)
    throw new ArchiveError(
      file,
      1,
      `format version ${String(h.version)} is not supported (this admin reads version ${ARCHIVE_VERSION})`,
    );
  if (typeof h.tenant !== 'string' || !isTenantId(h.tenant))
    throw new ArchiveError(file, 1, `the header names no valid tenant id`);
  if (!h.counts || typeof h.counts !== 'object' || Object.values(h.counts).some((n) => !Number.isInteger(n)))
    throw new ArchiveError(file, 1, 'the header has no counts');
  return h as ArchiveHeader;
}

function parseDocumentLine(file: string, line: number, text: string, tenantId: string) {
  let parsed: unknown;
  try {
    parsed = EJSON.parse(text, { relaxed: true });
  } catch (err) {
    throw new ArchiveError(file, line, `not JSON (${(err as Error).message})`);
  }
  const { collection, document } = (parsed ?? {}) as { collection?: unknown; document?: unknown };
  const spec = EXPORTED.find((c) => c.name === collection);
  if (!spec) throw new ArchiveError(file, line, `unknown collection ${JSON.stringify(collection)}`);
  if (!document || typeof document !== 'object' || typeof (document as mongo.Document)._id !== 'string')
    throw new ArchiveError(file, line, 'no document with a string _id');
  if (!belongsToTenant(spec, document as mongo.Document, tenantId))
    throw new ArchiveError(file, line, `a document of another tenant than "${tenantId}"`);
  return { spec, document: document as mongo.Document };
}

/**
 * Reads the whole file once and checks it before anything is written: the header (format,
 * version, tenant, counts), every line (JSON, a known collection, a document of that tenant),
 * and that the counts agree. Answers the header and the tenant document.
 */
export async function checkArchive(file: string): Promise<{ header: ArchiveHeader; tenant: mongo.Document }> {
  let header: ArchiveHeader | undefined;
  let tenant: mongo.Document | undefined;
  const counts: Record<string, number> = {};
  for await (const { line, text } of archiveLines(file)) {
    if (!header) {
      if (line !== 1) throw new ArchiveError(file, 1, 'not a tenant export: the first line is empty');
      header = parseHeader(file, text);
      continue;
    }
    const { spec, document } = parseDocumentLine(file, line, text, header.tenant);
    counts[spec.name] = (counts[spec.name] ?? 0) + 1;
    if (spec.name === TENANTS) tenant = document;
  }
  if (!header) throw new ArchiveError(file, undefined, 'the file is empty');
  for (const spec of EXPORTED) {
    const expected = header.counts[spec.name] ?? 0;
    if ((counts[spec.name] ?? 0) !== expected)
      throw new ArchiveError(
        file,
        undefined,
        `the header counts ${expected} ${spec.name} but the file holds ${counts[spec.name] ?? 0} (cut short?)`,
      );
  }
  if (counts[TENANTS] !== 1 || !tenant)
    throw new ArchiveError(file, undefined, 'the file holds not exactly one tenant document');
  return { header, tenant };
}

/** How many documents an import inserts at a time. */
const BATCH = 500;

/**
 * Inserts a checked file's documents (checkArchive first) as they were, ids, versions and
 * timestamps included, with each collection's import fields (entries and products queued for
 * this install's indexers). The tenant document goes last, so the tenant answers only once
 * everything is in. On a failure everything written is deleted again (the install had nothing
 * of this tenant before: the caller checks) and the error goes up.
 */
export async function importTenant(
  db: mongo.Db,
  file: string,
  header: ArchiveHeader,
  progress: { start(total: number): void; update(done: number): void },
  lost: () => boolean = () => false,
): Promise<Record<string, number>> {
  const inserted: Record<string, number> = {};
  const batches = new Map<TenantCollection, mongo.Document[]>();
  let tenantDoc: mongo.Document | undefined;
  let done = 0;
  const flush = async (spec: TenantCollection) => {
    const docs = batches.get(spec) ?? [];
    if (docs.length === 0) return;
    // The tenant's lease lapsed (this process stalled past it): a purge or another import may be
    // running now; stop, and undo what was written, rather than write beside it.
    if (lost()) throw new LeaseLostError(header.tenant);
    await insertTenantDocuments(db, spec, docs);
    inserted[spec.name] = (inserted[spec.name] ?? 0) + docs.length;
    batches.set(spec, []);
    done += docs.length;
    progress.update(done);
  };
  progress.start(sum(header.counts));
  try {
    let first = true;
    for await (const { line, text } of archiveLines(file)) {
      if (first) {
        first = false;
        continue;
      }
      const { spec, document } = parseDocumentLine(file, line, text, header.tenant);
      if (spec.name === TENANTS) {
        tenantDoc = document;
        continue;
      }
      const batch = batches.get(spec) ?? [];
      batch.push(document);
      batches.set(spec, batch);
      if (batch.length >= BATCH) await flush(spec);
    }
    for (const spec of batches.keys()) await flush(spec);
    const tenants = EXPORTED.find((c) => c.name === TENANTS) as TenantCollection;
    batches.set(tenants, tenantDoc ? [tenantDoc] : []);
    await flush(tenants);
  } catch (err) {
    await deleteTenantDocuments(db, EXPORTED, header.tenant);
    throw err;
  }
  return inserted;
}

/** The import's or purge's lease on the tenant's data was lost while it ran. */
export class LeaseLostError extends Error {
  constructor(tenant: string) {
    super(
      `the lease on tenant "${tenant}"'s data lapsed while this command ran (another import or purge may have begun)`,
    );
  }
}

/** Removes every document of the tenant from every collection; answers how many each held. */
export function purgeTenantDocuments(db: mongo.Db, tenantId: string): Promise<Record<string, number>> {
  // The tenant document first: the tenant stops answering before its data goes.
  const ordered = [...TENANT_COLLECTIONS].sort((a, b) => Number(b.name === TENANTS) - Number(a.name === TENANTS));
  return deleteTenantDocuments(db, ordered, tenantId);
}

/**
 * Tenants purged from this install's search indices, by id, with when: Elasticsearch keeps a
 * deleted document's version for the indices' `gc_deletes` (1 h) and takes a write of the same
 * version for stale, so an import of the tenant within that time rebuilds the indices instead of
 * leaving its documents to the indexers. Not a tenant's collection: it outlives the purge.
 */
const PURGES = 'tenant_purges';
/** The indices' `gc_deletes` (index-settings.ts), and a margin. */
export const PURGE_REMEMBERED_MS = 65 * 60_000;

export async function recordPurge(db: mongo.Db, tenantId: string): Promise<void> {
  await db
    .collection<{ _id: string; purged_at: Date }>(PURGES)
    .updateOne({ _id: tenantId }, { $set: { purged_at: new Date() } }, { upsert: true });
}

/** When the tenant was last purged from the search indices, if within PURGE_REMEMBERED_MS. */
export async function recentPurge(db: mongo.Db, tenantId: string): Promise<Date | undefined> {
  const found = await db.collection<{ _id: string; purged_at: Date }>(PURGES).findOne({ _id: tenantId });
  return found && Date.now() - found.purged_at.getTime() < PURGE_REMEMBERED_MS ? found.purged_at : undefined;
}

export async function forgetPurge(db: mongo.Db, tenantId: string): Promise<void> {
  await db.collection<{ _id: string }>(PURGES).deleteOne({ _id: tenantId });
}
