import type { Caller } from '@kb/platform';
import type { Category } from '../types';
import { callerWith } from '../access';
import { inUse, toTopLevel, type CategoryContext } from './context';

export interface CategoryInput {
  name: string;
  description: string | null;
  parent_id: string | null;
  sort_order: number;
}

/** POST /categories: under a parent, the write runs under the parent's claim, so a concurrent delete of the parent cannot miss it. */
export async function createCategory(
  ctx: CategoryContext,
  callerIn: Caller | null | undefined,
  input: CategoryInput,
): Promise<Category> {
  const caller = callerWith(callerIn, 'knowledge:write');
  const tenantId = caller.tenant_id;
  if (!input.parent_id) return ctx.categories.create(tenantId, input);
  const create = () => ctx.categories.create(tenantId, input);
  return ctx.asParent.referring(tenantId, input.parent_id, create, (created) =>
    discardCreated(ctx, tenantId, created.id),
  );
}

/** Undoes a create under a parent deleted meanwhile (see context.ts). */
async function discardCreated(ctx: CategoryContext, tenantId: string, id: string): Promise<void> {
  // Nobody was told its id, but a list may have shown it: if it is in use already, keep it at the top level.
  await ctx.asCategory.remove(tenantId, id, () => inUse(ctx, tenantId, id)).catch(() => toTopLevel(ctx, tenantId, id));
}
