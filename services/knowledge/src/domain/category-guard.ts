import { parentGuard } from '@kb/rules';
import { type AppError } from '@kb/platform';
import type { CategoriesRepo } from '../data-access/categories-repo';
import { notFound } from './access';

/**
 * A category as a parent: entries and child categories refer to it, and it may be deleted only
 * while none does. Writes that make something refer to it run under its claim; its delete marks
 * it first (the protocol and why it holds: @kb/rules parent-guard.ts).
 */
export function categoryGuard(categories: CategoriesRepo, missing: () => AppError = () => notFound('Category')) {
  return parentGuard(categories.guard, { what: 'Category', missing });
}
export type CategoryGuard = ReturnType<typeof categoryGuard>;
