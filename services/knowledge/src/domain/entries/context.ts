import type { Caller, SimilarityClient } from '@kb/platform';
import type { Entry } from '../types';
import type { CategoriesRepo } from '../../data-access/categories-repo';
import type { EntriesRepo } from '../../data-access/entries-repo';
import type { TenantReads } from '../../data-access/cached-tenants';
import type { Transactions } from '../../data-access/transactions';
import { callerWith, notFound } from '../access';
import { categoryGuard, type CategoryGuard } from '../category-guard';
import type { EntryIndexer } from '../indexer';
import { effectiveSettings } from '../tenant-settings';
import { viewerOf, type Viewer } from '../visibility';
import { leasedTurns, type LeasedTurns } from '../leased-turns';
import { rebuildSkillIndex } from '../skill-index';
import { oneAtATimePerKey, type OneAtATime } from './one-at-a-time';
import { joinedRebuilds, type JoinedRebuilds } from './skill-index-rebuilds';

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
  /**
   * Skill writes of one tenant (each with its skill-index rebuild) take turns: in this process
   * first (a queue, so they do not poll the lease against each other), then across every
   * replica by the tenant's lease in MongoDB, so a rebuild never reads before another's write
   * and overwrites it, and a tenant never gets two skill indexes.
   */
  skillIndexTurns: OneAtATime;
  skillIndexLease: LeasedTurns;
  /** Without transactions: the rebuild after a skill write, joined with other writes' (skill-index-rebuilds.ts). */
  skillIndexRebuilds: JoinedRebuilds;
}

/** How long a skill write holds the tenant's skill-index lease at most (a crashed holder's is free after it). */
export const SKILL_INDEX_LEASE_MS = 10_000;
/** How long a skill write waits for its turn before it answers 409. */
export const SKILL_INDEX_WAIT_MS = 10_000;

export function entryContext(deps: EntryDeps): EntryContext {
  const skillIndexLease = leasedTurns(deps.entries.leases, 'skill-index', {
    ttlMs: SKILL_INDEX_LEASE_MS,
    waitMs: SKILL_INDEX_WAIT_MS,
    busy: 'Other skill writes of this tenant are under way; try again',
  });
  const leasedRebuild = async (tenantId: string, caller: Caller): Promise<Entry | null> => {
    const { result, kept } = await skillIndexLease(tenantId, () => rebuildSkillIndex(deps.entries, tenantId, caller));
    if (kept) return result;
    // Held past its time: another rebuild may have run beside it; once more, from all skills.
    return (await skillIndexLease(tenantId, () => rebuildSkillIndex(deps.entries, tenantId, caller))).result ?? result;
  };
  return {
    ...deps,
    inCategory: categoryGuard(deps.categories),
    skillIndexTurns: oneAtATimePerKey(),
    skillIndexLease,
    skillIndexRebuilds: joinedRebuilds(leasedRebuild),
  };
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
