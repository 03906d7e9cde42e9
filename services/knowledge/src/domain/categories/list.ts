import type { Caller } from '@kb/platform';
import type { Category } from '../types';
import { callerWith } from '../access';
import type { CategoryContext } from './context';

/** GET /categories: the tenant's categories, or the children of one parent. */
export async function listCategories(
  ctx: CategoryContext,
  callerIn: Caller | null | undefined,
  parentId: string | undefined,
): Promise<Category[]> {
  const caller = callerWith(callerIn, 'knowledge:read');
  return ctx.categories.list(caller.tenant_id, parentId === undefined ? {} : { parentId });
}
