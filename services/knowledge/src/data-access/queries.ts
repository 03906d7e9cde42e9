import type { Connection, Model } from 'mongoose';
import { declaredCollections, reindexRunQueries, type DeclaredCollection, type QueryShape } from '@kb/mongo';
import { CATEGORY_QUERIES } from './categories-repo';
import { ENTRY_QUERIES } from './entries-repo';
import { knowledgeModels } from './models';
import { TENANT_QUERIES } from './tenants-repo';
import { TOKEN_QUERIES } from './tokens-repo';

/** Every query the knowledge service's repositories issue (docs/mongodb.md lists them with their indexes). */
export const KNOWLEDGE_QUERIES: QueryShape[] = [
  ...ENTRY_QUERIES,
  ...CATEGORY_QUERIES,
  ...TENANT_QUERIES,
  ...TOKEN_QUERIES,
  reindexRunQueries('entry_reindex_runs'), // admin/entry-index.ts ENTRY_REINDEX_RUNS
];

/**
 * Indexes of tenant-scoped collections that do not lead with tenant_id, and why: the background
 * indexer's queue and change scans and the admin CLI's refusals work across tenants, and a
 * token's hash is unique in the whole install.
 */
export const KNOWLEDGE_CROSS_TENANT_INDEXES = [
  'knowledge_entries.index_pending_1_updated_at_1',
  'knowledge_entries.updated_at_1',
  'knowledge_entries.index_error.at_-1',
  'knowledge_entry_tombstones.deleted_at_1',
  'api_tokens.hash_1',
];

/** The knowledge service's collections and their declared indexes (models registered on `connection`; nothing is opened). */
export function knowledgeCollections(connection: Connection): DeclaredCollection[] {
  return declaredCollections(Object.values(knowledgeModels(connection)) as Model<unknown>[]);
}
