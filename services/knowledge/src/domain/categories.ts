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
  };
}
export type CategoryUseCases = ReturnType<typeof categoryUseCases>;
