/*
 * A tenant's documents as a whole (the admin CLI's `tenant export|import|purge`): each service
 * declares the collections it owns and how a document there belongs to a tenant; the functions
 * here read, write and delete by that declaration on the raw collections (no mongoose casting:
 * an export keeps every stored type, Decimal128 and dates included).
 */
import type { mongo } from 'mongoose';

/** One collection a service owns, as a tenant's export, import and purge see it. */
export interface TenantCollection {
  name: string;
  /** How a document names its tenant: its `tenant_id`, or its `_id` (the tenants collection). */
  tenantKey: 'tenant_id' | '_id';
  /**
   * Exported and imported. Not exported: secrets (token hashes), and state that belongs to one
   * install's running processes (indexing queues, leases, locks); those are only purged.
   */
  exported: boolean;
  /** Fields left out of an export: state of this install's processes (claims, guards, index errors). */
  omit?: readonly string[];
  /** Set on every imported document: what makes this install's indexers take it. */
  onImport?: Readonly<Record<string, unknown>>;
}

type Doc = mongo.Document;

function tenantFilter(spec: TenantCollection, tenantId: string): mongo.Filter<Doc> {
  return { [spec.tenantKey]: tenantId } as mongo.Filter<Doc>;
}

/** True when `doc` belongs to `tenantId` by the collection's declaration. */
export function belongsToTenant(spec: TenantCollection, doc: Doc, tenantId: string): boolean {
  return doc[spec.tenantKey] === tenantId;
}

/** How many documents of the tenant each collection holds, by collection name. */
export async function countTenantDocuments(
  db: mongo.Db,
  specs: readonly TenantCollection[],
  tenantId: string,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const spec of specs)
    counts[spec.name] = await db.collection(spec.name).countDocuments(tenantFilter(spec, tenantId));
  return counts;
}

/** The tenant's documents of one collection in `_id` order, without the omitted fields; one batch in memory at a time. */
export async function* tenantDocuments(db: mongo.Db, spec: TenantCollection, tenantId: string): AsyncGenerator<Doc> {
  const projection = Object.fromEntries((spec.omit ?? []).map((f) => [f, 0]));
  const cursor = db
    .collection(spec.name)
    .find(tenantFilter(spec, tenantId), { projection })
    .sort({ _id: 1 })
    .batchSize(500);
  try {
    for await (const doc of cursor) yield doc;
  } finally {
    await cursor.close();
  }
}

/** Inserts exported documents as they were, with the collection's `onImport` fields and without its omitted ones. */
export async function insertTenantDocuments(db: mongo.Db, spec: TenantCollection, docs: Doc[]): Promise<void> {
  if (docs.length === 0) return;
  const ready = docs.map((doc) => {
    const copy: Doc = { ...doc, ...spec.onImport };
    for (const field of spec.omit ?? []) delete copy[field];
    return copy;
  });
  await db.collection(spec.name).insertMany(ready, { ordered: true });
}

/** Deletes the tenant's documents from every collection; answers how many each held. */
export async function deleteTenantDocuments(
  db: mongo.Db,
  specs: readonly TenantCollection[],
  tenantId: string,
): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  for (const spec of specs)
    deleted[spec.name] = (await db.collection(spec.name).deleteMany(tenantFilter(spec, tenantId))).deletedCount;
  return deleted;
}
