import { randomUUID } from 'node:crypto';
import type { Caller } from '@kb/platform';
import type { Entry, EntryTombstone, EntryVersion } from '../types';

/** What a writer decides about a new entry; the rest starts the same for every entry. */
type NewEntryFields = Omit<
  Entry,
  | 'id'
  | 'version'
  | 'embedding_model'
  | 'site_ids'
  | 'content_changed_at'
  | 'indexed_version'
  | 'index_pending'
  | 'index_error'
  | 'created_at'
  | 'updated_at'
>;

/** A new entry at version 1, not yet in the search index. */
export function newEntryRecord(fields: NewEntryFields, now: Date): Entry {
  return {
    id: randomUUID(),
    ...fields,
    version: 1,
    embedding_model: null,
    site_ids: [],
    content_changed_at: now,
    indexed_version: 0,
    index_pending: true,
    created_at: now,
    updated_at: now,
  };
}

/** The history record of the state a change wrote, with who wrote it (by default, when the entry says). */
export function versionRecord(
  e: Entry,
  action: string,
  caller: Caller,
  changedAt: Date = e.updated_at,
): Omit<EntryVersion, 'id'> {
  return {
    tenant_id: e.tenant_id,
    entry_id: e.id,
    version: e.version,
    action,
    changed_at: changedAt,
    changed_by_user_id: caller.user_id || null,
    audit_source: caller.audit_source || 'api',
    client_id: caller.client_id || null,
    request_id: caller.request_id || null,
    snapshot: { ...e } as unknown as Record<string, unknown>,
  };
}

/** What a delete leaves for the search index: the entry at the version after its last. */
export function tombstoneOf(e: Pick<Entry, 'id' | 'tenant_id' | 'version'>, now: Date = new Date()): EntryTombstone {
  return { id: e.id, tenant_id: e.tenant_id, version: e.version + 1, deleted_at: now };
}

/** A change's updated_at: now, but always after the previous one, so the list's keyset order sees every change. */
export function nextUpdatedAt(previous: Date, now: number = Date.now()): Date {
  return new Date(Math.max(now, previous.getTime() + 1));
}
