import type Koa from 'koa';
import { LRUCache } from 'lru-cache';
import { AppError, type knowledgeV1 } from '@kb/platform';
import type { GatewayConfig } from '../config';
import type { Backends } from '../clients/backends';
import { unknownTenantRefusal } from './bearer';

export type Tenant = knowledgeV1.Tenant__Output;

const LOCALHOST_TENANT = /^([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)\.localhost$/;
const CACHE_TTL_MS = 5000;
/** Addresses remembered (tenants found, and names found to be no tenant): any number of names can be sent. */
const CACHE_MAX = 10_000;
const NO_TENANT = 'none';

/**
 * Finds the tenant a request was addressed to (docs/api.md, "Tenancy"): the configured one in
 * TENANT_MODE=single; in host mode the Host header, where `<tenant>.localhost` and the default
 * hosts work without configuration and any other host (and a `<name>.localhost` whose name is no
 * tenant id) is looked up in the tenants' host list.
 * Answers are cached for a few seconds so settings changes show up quickly. An address that
 * names no tenant is answered as a tenant answers a caller without a valid token (401), so
 * nobody learns from the answer which tenants exist.
 */
export function tenantResolver(config: GatewayConfig, backends: Backends) {
  const cache = new LRUCache<string, Tenant | typeof NO_TENANT>({ max: CACHE_MAX, ttl: CACHE_TTL_MS });
  const defaultHosts = new Set(
    config.DEFAULT_HOSTS.split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  );

  const lookup = async (key: string, request: knowledgeV1.ResolveTenantRequest, requestId: string): Promise<Tenant> => {
    const hit = cache.get(key);
    if (hit === NO_TENANT) throw AppError.notFound('Tenant not found');
    if (hit) return hit;
    try {
      const tenant = await backends.knowledge.call('ResolveTenant', { ...request, caller: { request_id: requestId } });
      cache.set(key, tenant);
      return tenant;
    } catch (err) {
      if (err instanceof AppError && err.kind === 'not_found') cache.set(key, NO_TENANT);
      throw err;
    }
  };

  return async function resolve(ctx: Koa.Context): Promise<Tenant> {
    try {
      return await find(ctx);
    } catch (err) {
      throw err instanceof AppError && err.kind === 'not_found' ? unknownTenantRefusal(ctx) : err;
    }
  };

  async function find(ctx: Koa.Context): Promise<Tenant> {
    const requestId = ctx.state.requestId as string;
    if (config.TENANT_MODE === 'single')
      return lookup(`id:${config.TENANT_ID}`, { tenant_id: config.TENANT_ID }, requestId);
    const forwarded = config.TRUST_PROXY ? ctx.get('X-Forwarded-Host').split(',')[0]?.trim() : '';
    const host = (forwarded || ctx.get('Host'))
      .toLowerCase()
      .replace(/:\d+$/, '')
      .replace(/^\[|\]$/g, '');
    if (!host) throw AppError.notFound('Tenant not found');
    if (defaultHosts.has(host)) {
      if (!config.DEFAULT_TENANT) throw AppError.notFound('Tenant not found');
      return lookup(`id:${config.DEFAULT_TENANT}`, { tenant_id: config.DEFAULT_TENANT }, requestId);
    }
    const local = LOCALHOST_TENANT.exec(host);
    if (local) {
      try {
        return await lookup(`id:${local[1]}`, { tenant_id: local[1] }, requestId);
      } catch (err) {
        // Not a tenant id: a host registered with `--host my-shop.localhost` is looked up as any host.
        if (!(err instanceof AppError && err.kind === 'not_found')) throw err;
      }
    }
    return lookup(`host:${host}`, { host }, requestId);
  }
}
