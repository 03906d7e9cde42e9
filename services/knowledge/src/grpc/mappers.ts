import type { knowledgeV1 } from '@kb/common';
import type { CategoryRecord } from '../data-access/categories-repo';
import type { TenantRecord } from '../data-access/tenants-repo';
import { effectiveSettings } from '../domain/tenant-settings';

export function categoryMessage(c: CategoryRecord): knowledgeV1.Category {
  return {
    id: c.id,
    tenant_id: c.tenant_id,
    name: c.name,
    ...(c.description !== null ? { description: c.description } : {}),
    ...(c.parent_id !== null ? { parent_id: c.parent_id } : {}),
    sort_order: c.sort_order,
    created_at: c.created_at.toISOString(),
    updated_at: c.updated_at.toISOString(),
  };
}

export function tenantMessage(t: TenantRecord): knowledgeV1.Tenant {
  const s = effectiveSettings(t.settings);
  return {
    id: t.id,
    name: t.name,
    hosts: t.hosts,
    created_at: t.created_at.toISOString(),
    settings: {
      workspaces_enabled: s.workspaces_enabled,
      variant_strategy: s.variant_strategy,
      default_vector_field: s.default_vector_field,
      hybrid_weights: s.hybrid_weights,
      role_visibility_ceilings: s.role_visibility_ceilings,
      role_writable_types: Object.fromEntries(Object.entries(s.role_writable_types).map(([role, types]) => [role, { values: types }])),
      oauth: s.oauth,
    },
  };
}
