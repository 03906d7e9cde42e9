import { AppError, type Caller } from '@kb/common';
import type { CategoriesRepo, CategoryRecord } from '../data-access/categories-repo';
import { callerWith, notFound } from './access';

export interface CategoryInput {
  name: string;
  description: string | null;
  parent_id: string | null;
  sort_order: number;
}

export function categoryUseCases(categories: CategoriesRepo) {
  return {
    async list(callerIn: Caller | null | undefined, parentId: string | undefined): Promise<CategoryRecord[]> {
      const caller = callerWith(callerIn, 'knowledge:read');
      return categories.list(caller.tenant_id, parentId === undefined ? {} : { parentId });
    },

    async get(callerIn: Caller | null | undefined, id: string): Promise<CategoryRecord> {
      const caller = callerWith(callerIn, 'knowledge:read');
      const category = await categories.findById(caller.tenant_id, id);
      if (!category) throw notFound('Category');
      return category;
    },

    async create(callerIn: Caller | null | undefined, input: CategoryInput): Promise<CategoryRecord> {
      const caller = callerWith(callerIn, 'knowledge:write');
      if (input.parent_id && !(await categories.findById(caller.tenant_id, input.parent_id))) {
        throw AppError.invalid([{ loc: ['body', 'parent_id'], msg: 'Parent category not found', type: 'value_error' }]);
      }
      return categories.create(caller.tenant_id, input);
    },

    /** Only sent fields change; parent_id null moves to the top; a parent may not be the category or below it. */
    async update(
      callerIn: Caller | null | undefined,
      id: string,
      changes: Partial<Pick<CategoryInput, 'name' | 'description' | 'parent_id' | 'sort_order'>>,
    ): Promise<CategoryRecord> {
      const caller = callerWith(callerIn, 'knowledge:write');
      const current = await categories.findById(caller.tenant_id, id);
      if (!current) throw notFound('Category');
      if (changes.parent_id) {
        // Walk up from the new parent: meeting the category itself means a cycle.
        let cursor: string | null = changes.parent_id;
        const seen = new Set<string>();
        while (cursor) {
          if (cursor === id) {
            throw AppError.invalid([{ loc: ['body', 'parent_id'], msg: 'A category cannot be moved below itself or one of its descendants', type: 'value_error' }]);
          }
          if (seen.has(cursor)) break;
          seen.add(cursor);
          const parent: CategoryRecord | null = await categories.findById(caller.tenant_id, cursor);
          if (!parent) {
            if (cursor === changes.parent_id) {
              throw AppError.invalid([{ loc: ['body', 'parent_id'], msg: 'Parent category not found', type: 'value_error' }]);
            }
            break;
          }
          cursor = parent.parent_id;
        }
      }
      const updated = await categories.update(caller.tenant_id, id, changes);
      if (!updated) throw notFound('Category');
      return updated;
    },

    /** knowledge:admin; 409 while the category has children or entries. */
    async remove(callerIn: Caller | null | undefined, id: string, countEntries: (tenantId: string, categoryId: string) => Promise<number>): Promise<void> {
      const caller = callerWith(callerIn, 'knowledge:admin');
      if (!(await categories.findById(caller.tenant_id, id))) throw notFound('Category');
      if ((await categories.countChildren(caller.tenant_id, id)) > 0) throw AppError.conflict('Category has child categories');
      if ((await countEntries(caller.tenant_id, id)) > 0) throw AppError.conflict('Category has knowledge entries');
      await categories.remove(caller.tenant_id, id);
    },
  };
}
export type CategoryUseCases = ReturnType<typeof categoryUseCases>;
