import { AppError } from '@kb/platform';
import type { CategoriesRepo } from '../../data-access/categories-repo';
import type { EntriesRepo } from '../../data-access/entries-repo';
import { categoryGuard, type CategoryGuard } from '../category-guard';
import { categoryTree, type CategoryTree } from './tree-lock';

export interface CategoryContext {
  categories: CategoriesRepo;
  entries: Pick<EntriesRepo, 'countInCategory'>;
  /** Named in a body (parent_id), an unknown parent is a 404, as an unknown category_id of an entry is. */
  asParent: CategoryGuard;
  /** The category a delete names: unknown is a 404. */
  asCategory: CategoryGuard;
  /** Moves take turns per tenant, so no two cycle checks pass against the same tree. */
  tree: CategoryTree;
}

// A 404, not a 422: the body is valid (a uuid); what it names does not exist, for this caller.
export const parentNotFound = () => AppError.notFound('Parent category not found');

export function categoryContext(
  categories: CategoriesRepo,
  entries: Pick<EntriesRepo, 'countInCategory'>,
): CategoryContext {
  return {
    categories,
    entries,
    asParent: categoryGuard(categories, parentNotFound),
    asCategory: categoryGuard(categories),
    tree: categoryTree(categories),
  };
}

/** Why the category may not be deleted now, or null; asked while the delete holds it. */
export async function inUse(ctx: CategoryContext, tenantId: string, id: string): Promise<string | null> {
  if ((await ctx.categories.countChildren(tenantId, id)) > 0) return 'Category has child categories';
  if ((await ctx.entries.countInCategory(tenantId, id)) > 0) return 'Category has knowledge entries';
  return null;
}

/*
 * Undoing a write whose parent was deleted while its claim was dropped (a stall longer than the
 * guard's TTL; @kb/rules parent-guard.ts): the category must not stay under a deleted parent.
 */

export async function toTopLevel(ctx: CategoryContext, tenantId: string, id: string): Promise<void> {
  await ctx.categories.update(tenantId, id, { parent_id: null });
}
