import { randomUUID } from 'node:crypto';
import { parentGuardStore } from '@kb/common';
import type { CategoryDoc, KnowledgeModels } from './models';

/** What the repository hands out: the stored document with `id` for `_id` (the guard's state is internal). */
export type CategoryRecord = Omit<CategoryDoc, '_id' | 'guard'> & { id: string };

const toRecord = (d: CategoryDoc): CategoryRecord => ({
  id: d._id,
  tenant_id: d.tenant_id,
  name: d.name,
  description: d.description ?? null,
  parent_id: d.parent_id ?? null,
  sort_order: d.sort_order ?? 0,
  created_at: d.created_at,
  updated_at: d.updated_at,
});

export function categoriesRepo(models: KnowledgeModels) {
  const { Category } = models;
  return {
    /** Categories of the tenant, ordered by sort_order then name (then id, for a stable order). */
    async list(tenantId: string, filter: { parentId?: string | null }): Promise<CategoryRecord[]> {
      const query: Record<string, unknown> = { tenant_id: tenantId };
      if (filter.parentId !== undefined) query.parent_id = filter.parentId;
      const docs = await Category.find(query).sort({ sort_order: 1, name: 1, _id: 1 }).lean<CategoryDoc[]>();
      return docs.map(toRecord);
    },
    async findById(tenantId: string, id: string): Promise<CategoryRecord | null> {
      const doc = await Category.findOne({ tenant_id: tenantId, _id: id }).lean<CategoryDoc>();
      return doc ? toRecord(doc) : null;
    },
    async create(
      tenantId: string,
      input: { name: string; description: string | null; parent_id: string | null; sort_order: number },
    ): Promise<CategoryRecord> {
      const now = new Date();
      const doc = await Category.create({
        _id: randomUUID(),
        tenant_id: tenantId,
        ...input,
        created_at: now,
        updated_at: now,
      });
      return toRecord(doc.toObject());
    },
    /** Sets the given fields; returns null when the category does not exist in the tenant. */
    async update(
      tenantId: string,
      id: string,
      changes: Partial<Pick<CategoryRecord, 'name' | 'description' | 'parent_id' | 'sort_order'>>,
    ): Promise<CategoryRecord | null> {
      const doc = await Category.findOneAndUpdate(
        { tenant_id: tenantId, _id: id },
        { $set: { ...changes, updated_at: new Date() } },
        { returnDocument: 'after' },
      ).lean<CategoryDoc>();
      return doc ? toRecord(doc) : null;
    },
    async countChildren(tenantId: string, id: string): Promise<number> {
      return Category.countDocuments({ tenant_id: tenantId, parent_id: id });
    },
    /** Where a delete and the writes that refer to a category meet (domain/category-guard.ts); the only way a category is deleted. */
    guard: parentGuardStore(Category),
  };
}
export type CategoriesRepo = ReturnType<typeof categoriesRepo>;
