import type { Caller } from '@kb/platform';
import { callerWith } from '../access';
import { inUse, type CategoryContext } from './context';

/** DELETE /categories/{id}: knowledge:admin; 409 while the category has children or entries, also ones being written right now. */
export async function removeCategory(
  ctx: CategoryContext,
  callerIn: Caller | null | undefined,
  id: string,
): Promise<void> {
  const caller = callerWith(callerIn, 'knowledge:admin');
  await ctx.asCategory.remove(caller.tenant_id, id, () => inUse(ctx, caller.tenant_id, id));
}
