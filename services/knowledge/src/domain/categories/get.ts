import type { Caller } from '@kb/platform';
import type { Category } from '../types';
import { callerWith, notFound } from '../access';
import type { CategoryContext } from './context';

export async function getCategory(
  ctx: CategoryContext,
  callerIn: Caller | null | undefined,
  id: string,
): Promise<Category> {
  const caller = callerWith(callerIn, 'knowledge:read');
  const category = await ctx.categories.findById(caller.tenant_id, id);
  if (!category) throw notFound('Category');
  return category;
}
