import type { Caller } from '@kb/platform';
import type { CategoriesRepo } from '../../data-access/categories-repo';
import type { EntriesRepo } from '../../data-access/entries-repo';
import { categoryContext } from './context';
import { createCategory, type CategoryInput } from './create';
import { getCategory } from './get';
import { listCategories } from './list';
import { removeCategory } from './remove';
import { updateCategory, type CategoryChanges } from './update';

export type { CategoryInput } from './create';
export type { CategoryChanges } from './update';

type CallerIn = Caller | null | undefined;

/** The category use cases, one file each, bound to the repositories and the category guards. */
export function categoryUseCases(categories: CategoriesRepo, entries: Pick<EntriesRepo, 'countInCategory'>) {
  const ctx = categoryContext(categories, entries);
  return {
    list: (caller: CallerIn, parentId: string | undefined) => listCategories(ctx, caller, parentId),
    get: (caller: CallerIn, id: string) => getCategory(ctx, caller, id),
    create: (caller: CallerIn, input: CategoryInput) => createCategory(ctx, caller, input),
    update: (caller: CallerIn, id: string, changes: CategoryChanges) => updateCategory(ctx, caller, id, changes),
    remove: (caller: CallerIn, id: string) => removeCategory(ctx, caller, id),
  };
}
export type CategoryUseCases = ReturnType<typeof categoryUseCases>;
