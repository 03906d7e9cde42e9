import { randomUUID } from 'node:crypto';
import { byIdQuery, isDuplicateKey, parentGuardQueries, parentGuardStore, type QueryShape } from '@kb/mongo';
import type { Category } from '../domain/types';
import type { CategoryDoc, KnowledgeModels } from './models';

/** A stored category as the domain reads it: `id` for `_id`, defaults for what older documents lack; the guard's state stays here. */
const toRecord = (d: CategoryDoc): Category => ({
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
  const { Category: CategoryModel, CategoryTree: TreeModel } = models;
  return {
    /** Categories of the tenant, ordered by sort_order then name (then id, for a stable order). */
    async list(tenantId: string, filter: { parentId?: string | null }): Promise<Category[]> {
      const query: Record<string, unknown> = { tenant_id: tenantId };
      if (filter.parentId !== undefined) query.parent_id = filter.parentId;
      const docs = await CategoryModel.find(query).sort({ sort_order: 1, name: 1, _id: 1 }).lean<CategoryDoc[]>();
      return docs.map(toRecord);
    },
    async findById(tenantId: string, id: string): Promise<Category | null> {
      const doc = await CategoryModel.findOne({ tenant_id: tenantId, _id: id }).lean<CategoryDoc>();
      return doc ? toRecord(doc) : null;
    },
    async create(
      tenantId: string,
      input: { name: string; description: string | null; parent_id: string | null; sort_order: number },
    ): Promise<Category> {
      const now = new Date();
      const doc = await CategoryModel.create({
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
      changes: Partial<Pick<Category, 'name' | 'description' | 'parent_id' | 'sort_order'>>,
    ): Promise<Category | null> {
      const doc = await CategoryModel.findOneAndUpdate(
        { tenant_id: tenantId, _id: id },
        { $set: { ...changes, updated_at: new Date() } },
        { returnDocument: 'after' },
      ).lean<CategoryDoc>();
      return doc ? toRecord(doc) : null;
    },
    async countChildren(tenantId: string, id: string): Promise<number> {
      return CategoryModel.countDocuments({ tenant_id: tenantId, parent_id: id });
    },
    /**
     * Takes the tenant's tree for one move: one conditional update (or the insert of the tree's
     * document, the first time), which succeeds only while no other move holds it or the holder
     * began longer than `ttlMs` ago (a crashed or stalled process). True when taken.
     */
    async lockTree(tenantId: string, token: string, now: Date, ttlMs: number): Promise<boolean> {
      const res = await TreeModel.updateOne(
        {
          tenant_id: tenantId,
          _id: tenantId,
          $or: [{ mover: null }, { 'mover.at': { $lt: new Date(now.getTime() - ttlMs) } }],
        },
        { $set: { mover: { token, at: now } }, $inc: { version: 1 } },
      );
      if (res.matchedCount === 1) return true;
      if (await TreeModel.exists({ tenant_id: tenantId, _id: tenantId })) return false;
      try {
        await TreeModel.create({ _id: tenantId, tenant_id: tenantId, mover: { token, at: now }, version: 1 });
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    },
    /** Gives the tree back; false when this move no longer held it (taken over after the TTL). */
    async unlockTree(tenantId: string, token: string): Promise<boolean> {
      const res = await TreeModel.updateOne(
        { tenant_id: tenantId, _id: tenantId, 'mover.token': token },
        { $set: { mover: null } },
      );
      return res.matchedCount === 1;
    },
    /** Where a delete and the writes that refer to a category meet (domain/category-guard.ts); the only way a category is deleted. */
    guard: parentGuardStore(CategoryModel),
  };
}
export type CategoriesRepo = ReturnType<typeof categoriesRepo>;

/** Every query this repository issues, as an index sees it (@kb/mongo query-shapes; docs/mongodb.md). */
export const CATEGORY_QUERIES: QueryShape[] = [
  {
    collection: 'categories',
    query: 'categoriesRepo list',
    eq: ['tenant_id'],
    sort: { sort_order: 1, name: 1, _id: 1 },
  },
  {
    collection: 'categories',
    query: 'categoriesRepo list of a parent',
    eq: ['tenant_id', 'parent_id'],
    sort: { sort_order: 1, name: 1, _id: 1 },
  },
  { collection: 'categories', query: 'categoriesRepo countChildren', eq: ['tenant_id', 'parent_id'] },
  byIdQuery('categories', 'categoriesRepo findById, update'),
  parentGuardQueries('categories'),
  byIdQuery('category_trees', 'categoriesRepo lockTree, unlockTree', ['mover', 'mover.at', 'mover.token']),
];
