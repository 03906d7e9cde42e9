import type { Client, estypes } from '@elastic/elasticsearch';
import { AppError, type similarityV1 } from '@kb/common';
import type { EmbeddingCache } from '../embedding-cache';
import { hybridSearch, searchLimit, searchQuery, type HybridHit } from '../hybrid-search';
import type { IndexManager } from '../indices/index-manager';
import { ENTRY_VECTOR_PATH } from '../indices/mappings';

export const ENTRY_TEXT_FIELDS = ['title^2', 'summary^1.5', 'content', 'similarity_text'];

/**
 * The EntryVisibilityFilter as a query: visibility in the list, or personal and owned by the
 * caller, or (when workspace-scoped) a workspace entry of one of the caller's workspaces.
 * `personal` in the list is ignored (only the owner clause can match a personal entry), and so
 * is `workspace` when workspace-scoped (only the workspace clause can match one then).
 */
export function visibilityQuery(v: similarityV1.EntryVisibilityFilter__Output): estypes.QueryDslQueryContainer {
  const listed = v.visibilities.filter((x) => x !== 'personal' && !(v.workspace_scoped && x === 'workspace'));
  const should: estypes.QueryDslQueryContainer[] = [];
  if (listed.length > 0) should.push({ terms: { visibility: listed } });
  if (v.owner_user_id) should.push({ bool: { filter: [{ term: { visibility: 'personal' } }, { term: { owner_user_id: v.owner_user_id } }] } });
  if (v.workspace_scoped && v.workspace_ids.length > 0) {
    should.push({ bool: { filter: [{ term: { visibility: 'workspace' } }, { terms: { workspace_id: v.workspace_ids } }] } });
  }
  // Nothing visible: a clause that matches no document.
  if (should.length === 0) return { bool: { must_not: [{ match_all: {} }] } };
  return { bool: { should, minimum_should_match: 1 } };
}

export async function searchEntries(
  deps: { es: Client; indices: IndexManager; cache: EmbeddingCache },
  req: similarityV1.SearchEntriesRequest__Output,
  tenantId: string,
): Promise<HybridHit[]> {
  const query = searchQuery(req.query);
  const limit = searchLimit(req.limit);
  if (!req.visibility) throw AppError.invalid([{ loc: ['visibility'], msg: 'visibility filter is required', type: 'missing' }]);
  const filter: estypes.QueryDslQueryContainer[] = [{ term: { tenant_id: tenantId } }, visibilityQuery(req.visibility)];
  if (req.types.length > 0) filter.push({ terms: { type: req.types } });
  if (req.category_id) filter.push({ term: { category_id: req.category_id } });
  if (req.language) filter.push({ term: { language: req.language } });
  await deps.indices.ensure('entries');
  return hybridSearch(deps, {
    index: deps.indices.alias('entries'),
    query,
    limit,
    filter: { bool: { filter } },
    textFields: ENTRY_TEXT_FIELDS,
    keywordField: 'search_keywords',
    vectorField: ENTRY_VECTOR_PATH,
  });
}
