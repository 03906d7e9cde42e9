import { Type } from '@sinclair/typebox';
import type { Backends } from '../../clients/backends';
import type { RouteTable } from '../route';
import { EntrySearch, EntrySearchHit, entryJson } from '../entry-schemas';

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
    extension: true,
    body: EntrySearch,
    responses: { 200: { description: 'Hits, best first', schema: Type.Array(EntrySearchHit) } },
    handler: async ({ body, caller }) => {
      const res = await backends.knowledge.call('SearchEntries', {
        caller,
        query: body.query,
        limit: body.limit ?? 10,
        types: body.types ?? [],
        ...(body.category_id ? { category_id: body.category_id } : {}),
        ...(body.language ? { language: body.language } : {}),
      });
      return { body: res.hits.map((h) => ({ entry: entryJson(h.entry!), score: h.score, score_sources: h.score_sources })) };
    },
  });
}
