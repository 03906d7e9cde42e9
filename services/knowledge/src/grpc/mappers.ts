import type { knowledgeV1 } from '@kb/platform';
import type { CategoryChanges, CategoryInput } from '../domain/categories';
import type {
  EntryInput,
  EntryListRequest,
  EntrySearchHit,
  EntrySearchRequest,
  TranslationMember,
} from '../domain/entries';
import { entryMessage } from '../domain/entry-message';
import { effectiveSettings } from '../domain/tenant-settings';
import type { ApiToken, Category, Entry, EntryVersion, Tenant } from '../domain/types';

export { entryMessage };

// ---- requests → use-case inputs ----

export function categoryInput(req: knowledgeV1.CreateCategoryRequest__Output): CategoryInput {
  return {
    name: req.name,
    description: req.description ?? null,
    parent_id: req.parent_id ?? null,
    sort_order: req.sort_order,
  };
}

/** Only the fields the client sent; a sent null clears description and parent_id. */
export function categoryChanges(req: knowledgeV1.UpdateCategoryRequest__Output): CategoryChanges {
  const sent = new Set(req.sent_fields);
  const changes: CategoryChanges = {};
  if (sent.has('name') && req.name !== undefined) changes.name = req.name;
  if (sent.has('description')) changes.description = req.description ?? null;
  if (sent.has('parent_id')) changes.parent_id = req.parent_id ?? null;
  if (sent.has('sort_order') && req.sort_order !== undefined) changes.sort_order = req.sort_order;
  return changes;
}

/** A request without an input counts as one that sent no field. */
export function entryInput(input: knowledgeV1.EntryInput__Output | null): EntryInput {
  return input ?? ({ tags: [], search_keywords: [], project_ids: [], sent_fields: [] } as unknown as EntryInput);
}

/** An empty filter is no filter, except layer: a sent empty layer lists the entries without one. */
export function entryListRequest(req: knowledgeV1.ListEntriesRequest__Output): EntryListRequest {
  return {
    ...(req.category_id ? { category_id: req.category_id } : {}),
    ...(req.type ? { type: req.type } : {}),
    ...(req.project_id ? { project_id: req.project_id } : {}),
    ...(req.visibility ? { visibility: req.visibility } : {}),
    ...(req.layer != null ? { layer: req.layer } : {}),
    include_expired: req.include_expired,
    limit: req.limit,
    ...(req.cursor ? { cursor: req.cursor } : {}),
  };
}

export function entrySearchRequest(req: knowledgeV1.SearchEntriesRequest__Output): EntrySearchRequest {
  return {
    query: req.query,
    limit: req.limit,
    types: req.types,
    ...(req.category_id ? { category_id: req.category_id } : {}),
    ...(req.language ? { language: req.language } : {}),
    ...(req.passages != null ? { passages: req.passages } : {}),
    ...(req.min_relevance != null ? { min_relevance: req.min_relevance } : {}),
    ...(req.site_id ? { site_id: req.site_id } : {}),
    ...(req.tags?.length ? { tags: req.tags } : {}),
    ...(req.updated_after ? { updated_after: req.updated_after } : {}),
    ...(req.include_content === false ? { include_content: false } : {}),
  };
}

// ---- domain objects → messages ----

export function apiTokenMessage(token: ApiToken): knowledgeV1.ApiTokenIdentity {
  return {
    token_id: token.id,
    user_id: token.user_id ?? '',
    role: token.role,
    scopes: token.scopes,
    workspace_ids: token.workspace_ids,
    name: token.name ?? '',
    expires_at: token.expires_at ? token.expires_at.toISOString() : '',
  };
}

export function translationMessage(m: TranslationMember): knowledgeV1.Translation {
  return { entry: entryMessage(m.entry), is_source: m.isSource, outdated: m.outdated };
}

export function entrySearchHitMessage(h: EntrySearchHit): knowledgeV1.EntrySearchHit {
  return { ...h, entry: entryMessage(h.entry) };
}

export function categoryMessage(c: Category): knowledgeV1.Category {
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

export function tenantMessage(t: Tenant): knowledgeV1.Tenant {
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
      role_writable_types: Object.fromEntries(
        Object.entries(s.role_writable_types).map(([role, types]) => [role, { values: types }]),
      ),
      oauth: s.oauth,
      rate_limit: s.rate_limit,
    },
  };
}

export function entryVersionMessage(v: EntryVersion): knowledgeV1.EntryVersion {
  return {
    version: v.version,
    action: v.action,
    changed_at: new Date(v.changed_at).toISOString(),
    ...(v.changed_by_user_id ? { changed_by_user_id: v.changed_by_user_id } : {}),
    audit_source: v.audit_source,
    ...(v.client_id ? { client_id: v.client_id } : {}),
    entry: entryMessage(v.snapshot as unknown as Entry),
  };
}
