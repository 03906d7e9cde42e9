import { AppError, type Caller } from '@kb/common';
import type { CategoriesRepo, CategoryRecord } from '../data-access/categories-repo';
import type { EntriesRepo } from '../data-access/entries-repo';
import { callerWith, notFound } from './access';
import { categoryGuard } from './category-guard';

export interface CategoryInput {
  name: string;
  description: string | null;
  parent_id: string | null;
  sort_order: number;
}

const parentNotFound = () => AppError.invalid([{ loc: ['body', 'parent_id'], msg: 'Parent category not found', type: 'value_error' }]);

export function categoryUseCases(categories: CategoriesRepo, entries: Pick<EntriesRepo, 'countInCategory'>) {
  // Named in a body (parent_id), an unknown parent is a 422; the category a delete names is a 404.
  const asParent = categoryGuard(categories, parentNotFound);
  const asCategory = categoryGuard(categories);

  /** Why the category may not be deleted now, or null; asked while the delete holds it. */
  async function inUse(tenantId: string, id: string): Promise<string | null> {
    if ((await categories.countChildren(tenantId, id)) > 0) return 'Category has child categories';
    if ((await entries.countInCategory(tenantId, id)) > 0) return 'Category has knowledge entries';
    return null;
  }

  /** Walks up from the new parent: meeting the category itself means a cycle. */
  async function assertNotBelowItself(tenantId: string, id: string, parentId: string): Promise<void> {
    let cursor: string | null = parentId;
    const seen = new Set<string>();
    while (cursor) {
      if (cursor === id) {
        throw AppError.invalid([{ loc: ['body', 'parent_id'], msg: 'A category cannot be moved below itself or one of its descendants', type: 'value_error' }]);
      }
      if (seen.has(cursor)) break;
      seen.add(cursor);
      const parent: CategoryRecord | null = await categories.findById(tenantId, cursor);
      if (!parent) {
        if (cursor === parentId) throw parentNotFound();
        break;
      }
      cursor = parent.parent_id;
    }
  }

  /*
   * Undoing a write whose parent was deleted while its claim was dropped (a stall longer than
   * the guard's TTL; see parent-guard.ts): the category must not stay under a deleted parent.
   */
  const toTopLevel = async (tenantId: string, id: string) => void (await categories.update(tenantId, id, { parent_id: null }));
  async function discardCreated(tenantId: string, id: string): Promise<void> {
    // Nobody was told its id, but a list may have shown it: if it is in use already, keep it at the top level.
    await asCategory.remove(tenantId, id, () => inUse(tenantId, id)).catch(() => toTopLevel(tenantId, id));
  }
  async function moveBack(tenantId: string, id: string, parentId: string | null): Promise<void> {
    if (parentId === null) return toTopLevel(tenantId, id);
    const back = () => categories.update(tenantId, id, { parent_id: parentId });
    await asParent.referring(tenantId, parentId, back, () => toTopLevel(tenantId, id)).catch(() => toTopLevel(tenantId, id));
  }

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

    /** Under a parent, the write runs under the parent's claim, so a concurrent delete of the parent cannot miss it. */
    async create(callerIn: Caller | null | undefined, input: CategoryInput): Promise<CategoryRecord> {
      const caller = callerWith(callerIn, 'knowledge:write');
      const tenantId = caller.tenant_id;
      if (!input.parent_id) return categories.create(tenantId, input);
      return asParent.referring(tenantId, input.parent_id, () => categories.create(tenantId, input), (created) => discardCreated(tenantId, created.id));
    },

    /** Only sent fields change; parent_id null moves to the top; a parent may not be the category or below it. */
    async update(
      callerIn: Caller | null | undefined,
      id: string,
      changes: Partial<Pick<CategoryInput, 'name' | 'description' | 'parent_id' | 'sort_order'>>,
    ): Promise<CategoryRecord> {
      const caller = callerWith(callerIn, 'knowledge:write');
      const tenantId = caller.tenant_id;
      const current = await categories.findById(tenantId, id);
      if (!current) throw notFound('Category');
      if (changes.parent_id) await assertNotBelowItself(tenantId, id, changes.parent_id);
      const write = async () => {
        const updated = await categories.update(tenantId, id, changes);
        if (!updated) throw notFound('Category');
        return updated;
      };
      // Moving under another parent makes the category refer to it: under that parent's claim.
      if (!changes.parent_id || changes.parent_id === current.parent_id) return write();
      return asParent.referring(tenantId, changes.parent_id, write, () => moveBack(tenantId, id, current.parent_id));
    },

    /** knowledge:admin; 409 while the category has children or entries, also ones being written right now. */
    async remove(callerIn: Caller | null | undefined, id: string): Promise<void> {
      const caller = callerWith(callerIn, 'knowledge:admin');
      await asCategory.remove(caller.tenant_id, id, () => inUse(caller.tenant_id, id));
    },
  };
}
export type CategoryUseCases = ReturnType<typeof categoryUseCases>;
