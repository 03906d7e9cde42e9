import type { Caller } from '@kb/common';
import type { Category } from '../types';
import { callerWith, notFound } from '../access';
import { toTopLevel, type CategoryContext } from './context';
import type { CategoryInput } from './create';
import { assertNotBelowItself } from './parent-cycle';

export type CategoryChanges = Partial<Pick<CategoryInput, 'name' | 'description' | 'parent_id' | 'sort_order'>>;

/** PUT /categories/{id}: only sent fields change; parent_id null moves to the top; a parent may not be the category or below it. */
export async function updateCategory(
  ctx: CategoryContext,
  callerIn: Caller | null | undefined,
  id: string,
  changes: CategoryChanges,
): Promise<Category> {
  const caller = callerWith(callerIn, 'knowledge:write');
  const tenantId = caller.tenant_id;
  const current = await ctx.categories.findById(tenantId, id);
  if (!current) throw notFound('Category');
  if (changes.parent_id) await assertNotBelowItself((c) => ctx.categories.findById(tenantId, c), id, changes.parent_id);
  const write = async () => {
    const updated = await ctx.categories.update(tenantId, id, changes);
    if (!updated) throw notFound('Category');
    return updated;
  };
  // Moving under another parent makes the category refer to it: under that parent's claim.
  if (!changes.parent_id || changes.parent_id === current.parent_id) return write();
  return ctx.asParent.referring(tenantId, changes.parent_id, write, () =>
    moveBack(ctx, tenantId, id, current.parent_id),
  );
}

/** Undoes a move under a parent deleted meanwhile (see context.ts): back under the old parent, else to the top level. */
async function moveBack(ctx: CategoryContext, tenantId: string, id: string, parentId: string | null): Promise<void> {
  const top = () => toTopLevel(ctx, tenantId, id);
  if (parentId === null) return top();
  const back = () => ctx.categories.update(tenantId, id, { parent_id: parentId });
  await ctx.asParent.referring(tenantId, parentId, back, top).catch(top);
}
