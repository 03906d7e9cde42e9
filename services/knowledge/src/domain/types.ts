import type { IndexErrorRecord } from '@kb/indexing';

/*
 * What the knowledge service works on, as plain objects: the use cases and the gRPC mappers read
 * these; the repositories (data-access/) turn the stored documents into them and back.
 */

/** A tenant: who it is, the host names that address it, and its settings as stored (tenant-settings.ts reads them). */
export interface Tenant {
  id: string;
  name: string;
  hosts: string[];
  settings: Record<string, unknown>;
  created_at: Date;
}

/** An API token's identity (its hash never leaves data-access); `id` is also the visible part of the token. */
export interface ApiToken {
  id: string;
  tenant_id: string;
  user_id: string | null;
  role: string;
  scopes: string[];
  workspace_ids: string[];
  name: string | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

export interface Category {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  parent_id: string | null;
  sort_order: number;
  created_at: Date;
  updated_at: Date;
}

/** A knowledge entry. `owner_key` decides personal visibility (the user id, else the token). */
export interface Entry {
  id: string;
  tenant_id: string;
  title: string;
  content: string;
  category_id: string;
  visibility: string;
  type: string;
  version: number;
  language: string;
  translation_group_id: string;
  translation_of: string | null;
  source: string;
  source_reference: string | null;
  embedding_model: string | null;
  summary: string | null;
  layer: string | null;
  tags: string[];
  workspace_id: string | null;
  created_by_user_id: string | null;
  owner_key: string | null;
  metadata: Record<string, unknown>;
  search_keywords: string[];
  similarity_text: string | null;
  project_ids: string[] | null;
  site_ids: string[];
  expires_at: Date | null;
  /** When title, summary or content last changed (decides whether translations are outdated). */
  content_changed_at: Date;
  /** The version last written to the search index; below `version` means "index pending". */
  indexed_version: number;
  index_pending: boolean;
  /**
   * Set when the search index refused a version (index_pending is then false: not retried until
   * a new version or `admin index retry`); removed when a later version is indexed.
   */
  index_error?: IndexErrorRecord;
  /** Counts the changes that queued it for the index (with or without a new version); see @kb/indexing DocumentVersion. */
  index_seq?: number;
  /** Who is indexing it now, until when: a leased claim (@kb/mongo queue-claims). */
  index_claim?: { owner: string; until: Date };
  created_at: Date;
  updated_at: Date;
}

/** The fields of an entry a write sets (never its id or tenant). */
export type EntryChanges = Partial<Omit<Entry, 'id' | 'tenant_id'>>;

/** One state of an entry as written by one change, with who made it. */
export interface EntryVersion {
  id: string;
  tenant_id: string;
  entry_id: string;
  version: number;
  action: string;
  changed_at: Date;
  changed_by_user_id: string | null;
  audit_source: string;
  client_id: string | null;
  request_id: string | null;
  /** The entry as this change left it (an Entry; states written long ago may lack later fields). */
  snapshot: Record<string, unknown>;
}

/** A deleted entry still to be removed from the search index, at the version after its last. */
export interface EntryTombstone {
  id: string;
  tenant_id: string;
  version: number;
  deleted_at: Date;
}
