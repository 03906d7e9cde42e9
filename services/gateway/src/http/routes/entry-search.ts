import { Type } from '@sinclair/typebox';
import type { Backends } from '../../clients/backends';
import type { RouteTable } from '../route';
import { EntrySearch, EntrySearchHit } from '../entry-schemas';
import { searchEntriesRequest } from '../entry-requests';
import { entrySearchHitJson } from '../entry-views';

export function entrySearchRoutes(routes: RouteTable, backends: Backends): void {
  routes.define({
    method: 'post',
    path: '/search/entries',
    operationId: 'searchKnowledgeEntries',
    summary: 'Search knowledge entries',
    description:
      'Hybrid keyword (BM25, search_keywords and title boosted) + vector search over the entries the caller may see; the entry embedding ' +
      'is built from title, summary, content and similarity_text. Hits are re-checked against MongoDB, so a stale index never shows an ' +
      'entry the caller may not see. limit 1-50, default 10.',
    tag: 'search',
    readOnly: true,
    extension: true,
    body: EntrySearch,
    responses: { 200: { description: 'Hits, best first', schema: Type.Array(EntrySearchHit) } },
    handler: async ({ body, caller }) => ({
      body: (await backends.knowledge.call('SearchEntries', searchEntriesRequest(caller, body))).hits.map(
        entrySearchHitJson,
      ),
    }),
  });
}
