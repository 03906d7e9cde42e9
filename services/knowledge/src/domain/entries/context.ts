import type { Caller, SimilarityClient } from '@kb/platform';
import type { CategoriesRepo } from '../../data-access/categories-repo';
import type { EntriesRepo } from '../../data-access/entries-repo';
import type { TenantReads } from '../../data-access/cached-tenants';
import type { Transactions } from '../../data-access/transactions';
import { callerWith, notFound } from '../access';
import { categoryGuard, type CategoryGuard } from '../category-guard';
import type { EntryIndexer } from '../indexer';
import { effectiveSettings } from '../tenant-settings';
import { viewerOf, type Viewer } from '../visibility';
import { oneAtATimePerKey, type OneAtATime } from './one-at-a-time';

export interface EntryDeps {
  entries: EntriesRepo;
  categories: CategoriesRepo;
  /** Cached for TENANT_SETTINGS_CACHE_TTL_MS (data-access/cached-tenants.ts). */
  tenants: TenantReads;
  /** Where an entry, its history and the skill index are written together. */
  transactions: Transactions;
  indexer: EntryIndexer;
  similarity: SimilarityClient;
}

/** What every entry use case gets: the dependencies, categories as parents, and the skill-index queue. */
export interface EntryContext extends EntryDeps {
  inCategory: CategoryGuard;
  /** Skill-index rebuilds of one tenant run one after another in this process, so an older read never overwrites a newer rebuild. */
  skillIndexTurns: OneAtATime;
}

export function entryContext(deps: EntryDeps): EntryContext {
  return { ...deps, inCategory: categoryGuard(deps.categories), skillIndexTurns: oneAtATimePerKey() };
}

/** The caller, checked for the scope, as its tenant's settings (at most TENANT_SETTINGS_CACHE_TTL_MS old) see it. */
export async function viewerFor(
  ctx: EntryContext,
  callerIn: Caller | null | undefined,
  scope: 'knowledge:read' | 'knowledge:write',
): Promise<Viewer> {
  const caller = callerWith(callerIn, scope);
  const tenant = await ctx.tenants.findById(caller.tenant_id);
  return viewerOf(caller, effectiveSettings(tenant?.settings));
}

/** 404 `Category not found` unless the category exists in the tenant. */
export async function assertCategoryExists(ctx: EntryContext, tenantId: string, categoryId: string): Promise<void> {
  if (!(await ctx.categories.findById(tenantId, categoryId))) throw notFound('Category');
}
