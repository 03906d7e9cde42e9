/** Small builders for the unit tests: a caller, a viewer under given settings, an entry, an entry input. */
import { AppError, type Caller, type knowledgeV1 } from '@kb/platform';
import type { Entry } from '../../src/domain/types';
import { DEFAULT_TENANT_SETTINGS, type TenantSettings } from '../../src/domain/tenant-settings';
import { viewerOf, type Viewer } from '../../src/domain/visibility';

export function caller(overrides: Partial<Caller> = {}): Caller {
  return {
    tenant_id: 'tenant-1',
    user_id: 'user-1',
    role: 'Agent',
    scopes: ['knowledge:read', 'knowledge:write'],
    workspace_ids: [],
    audit_source: 'api',
    client_id: '',
    request_id: 'req-1',
    token_id: 'token-1',
    ...overrides,
  };
}

export function viewer(callerOverrides: Partial<Caller> = {}, settings: Partial<TenantSettings> = {}): Viewer {
  return viewerOf(caller(callerOverrides), { ...structuredClone(DEFAULT_TENANT_SETTINGS), ...settings });
}

export function entry(overrides: Partial<Entry> = {}): Entry {
  const at = new Date('2026-01-01T00:00:00.000Z');
  return {
    id: 'entry-1',
    tenant_id: 'tenant-1',
    title: 'Title',
    content: 'Content',
    category_id: 'cat-1',
    visibility: 'internal',
    type: 'knowledge',
    version: 3,
    language: 'de',
    translation_group_id: 'group-1',
    translation_of: null,
    source: 'manual',
    source_reference: null,
    embedding_model: null,
    summary: null,
    layer: null,
    tags: [],
    workspace_id: null,
    created_by_user_id: 'user-1',
    owner_key: 'user:user-1',
    metadata: {},
    search_keywords: [],
    similarity_text: null,
    project_ids: null,
    site_ids: [],
    expires_at: null,
    content_changed_at: at,
    indexed_version: 3,
    index_pending: false,
    created_at: at,
    updated_at: at,
    ...overrides,
  };
}

/** An entry input that sent exactly these fields (null included). */
export function input(fields: Record<string, unknown>): knowledgeV1.EntryInput__Output {
  const sent = Object.keys(fields);
  const values = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null));
  return {
    tags: [],
    search_keywords: [],
    project_ids: [],
    ...values,
    sent_fields: sent,
  } as unknown as knowledgeV1.EntryInput__Output;
}

/** The AppError a call throws (kind, message, issue locations), or a failure when it does not throw one. */
export function refusal(fn: () => unknown): { kind: string; message: string; locs: string[] } {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { kind: err.kind, message: err.message, locs: (err.issues ?? []).map((i) => i.loc.join('.')) };
  }
  throw new Error('expected an AppError, nothing was thrown');
}

export async function asyncRefusal(
  fn: () => Promise<unknown>,
): Promise<{ kind: string; message: string; locs: string[] }> {
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { kind: err.kind, message: err.message, locs: (err.issues ?? []).map((i) => i.loc.join('.')) };
  }
  throw new Error('expected an AppError, nothing was thrown');
}
