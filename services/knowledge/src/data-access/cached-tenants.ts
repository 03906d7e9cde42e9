import { LRUCache } from 'lru-cache';
import type { Tenant } from '../domain/types';
import type { TenantsRepo } from './tenants-repo';

/**
 * The longest a change of a tenant's settings (visibility ceilings, writable types, workspaces)
 * takes to reach entry reads and writes: the life of a cached tenant. Documented in
 * docs/threat-model.md; TENANT_SETTINGS_CACHE_TTL_MS may lower it, never raise it.
 */
export const TENANT_SETTINGS_BOUND_MS = 5000;
/** Tenants kept (the least recently used go first). */
const TENANTS_MAX = 10_000;

/** What entry use cases read of a tenant. */
export type TenantReads = Pick<TenantsRepo, 'findById'>;

/**
 * Tenants by id, each read from MongoDB at most once per `ttlMs` (concurrent reads of one share
 * the read); settings are changed by the admin CLI in another process, so nothing here could be
 * told of a change: the TTL is the bound. An unknown tenant is not kept. 0: every call reads.
 */
export function cachedTenantReads(tenants: TenantsRepo, ttlMs: number): TenantReads {
  if (ttlMs <= 0) return tenants;
  const cache = new LRUCache<string, Tenant>({
    max: TENANTS_MAX,
    ttl: ttlMs,
    fetchMethod: async (id) => (await tenants.findById(id)) ?? undefined,
  });
  return { findById: async (id) => (await cache.fetch(id)) ?? null };
}
