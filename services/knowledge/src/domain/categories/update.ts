import { AppError, type Caller } from '@kb/platform';
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
  const parentOf = (c: string) => ctx.categories.findById(tenantId, c);
  const write = async () => {
    const updated = await ctx.categories.update(tenantId, id, changes);
    if (!updated) throw notFound('Category');
    return updated;
  };
  const parentId = changes.parent_id;
  if (!parentId || parentId === current.parent_id) {
    if (parentId) await assertNotBelowItself(parentOf, id, parentId);
    return write();
  }
  // A move: the cycle check and the write in the tenant's turn (tree-lock.ts); the write refers
  // to the new parent, so under that parent's claim too.
  const move = async () => {
    await assertNotBelowItself(parentOf, id, parentId);
    return ctx.asParent.referring(tenantId, parentId, write, () => moveBack(ctx, tenantId, id, current.parent_id));
  };
  return ctx.tree.moving(tenantId, move, async () => {
    // This move lost its turn (it stalled past the TTL): another may have moved a parent below it.
    try {
      await assertNotBelowItself(parentOf, id, parentId);
    } catch {
      await toTopLevel(ctx, tenantId, id);
      throw AppError.conflict('The category tree changed during the move; the category was moved to the top level');
    }
  });
}

/** Undoes a move under a parent deleted meanwhile (see context.ts): back under the old parent, else to the top level. */
async function moveBack(ctx: CategoryContext, tenantId: string, id: string, parentId: string | null): Promise<void> {
  const top = () => toTopLevel(ctx, tenantId, id);
  if (parentId === null) return top();
  const back = async () => {
    // Still in the move's turn: the old parent may have been moved below this category meanwhile.
    await assertNotBelowItself((c) => ctx.categories.findById(tenantId, c), id, parentId);
    return ctx.categories.update(tenantId, id, { parent_id: parentId });
  };
  await ctx.asParent.referring(tenantId, parentId, back, top).catch(top);
}
