import { Type } from '@sinclair/typebox';
import { inSpan } from '@kb/platform';
import { RETRIEVAL_SPAN, retrievalProvenance, retrievalRequestAttributes, SEARCH_DEFAULT_LIMIT } from '@kb/search';
import type { Backends } from '../../clients/backends';
import type { ReadPath } from '../../read-path/read-path';
import type { RouteTable } from '../route';
import { EntrySearch, EntrySearchHit } from '../entry-schemas';
import { searchEntriesRequest } from '../entry-requests';
import { entrySearchHitJson } from '../entry-views';

export function entrySearchRoutes(routes: RouteTable, backends: Backends, reads?: ReadPath): void {
  routes.define({
    method: 'post',
    path: '/search/entries',
    operationId: 'searchKnowledgeEntries',
    summary: 'Search knowledge entries',
    description:
      'Hybrid keyword (BM25, search_keywords and title boosted) + vector search over the passages of the entries the caller may see: ' +
      "each entry's content is split along its Markdown structure and every passage embedded on its own. A hit is an entry with " +
      'its best passages (passages 0-5, default 3; text === entry.content.slice(start, end), highlights mark the query terms) and a ' +
      'calibrated relevance (0-1; at 0.5 and above the entry most likely answers). min_relevance leaves out weaker hits, so a ' +
      'question nothing answers gets []. Filters: types, category_id, language, site_id (uuid or slug), tags (any of, at most 20), ' +
      "updated_after. include_content false leaves the whole content out. Every hit's version is checked against MongoDB " +
      '(a hit still being indexed is answered from MongoDB), so a stale index never shows an entry (or a passage of one) ' +
      'the caller may not see. limit 1-50, default 10; fewer hits when the best ones ' +
      'together pass 8 MiB (large entries: the best hit always comes; include_content false makes hits small).',
    tag: 'search',
    readOnly: true,
    extension: true,
    body: EntrySearch,
    responses: { 200: { description: 'Hits, best first', schema: Type.Array(EntrySearchHit) } },
    handler: async ({ body, caller }) => {
      // A slug names the site as well as its uuid; an unknown site is a 404, as on every site route.
      const site = body.site_id ? await backends.catalog.call('GetSite', { caller, site_id: body.site_id }) : undefined;
      const req = { ...searchEntriesRequest(caller, body), ...(site ? { site_id: site.id } : {}) };
      const attributes = retrievalRequestAttributes(req.limit || SEARCH_DEFAULT_LIMIT, Number(req.min_relevance ?? 0), {
        query: body.query,
        language: body.language,
      });
      // One span per search, wherever it is answered: which version of which passage the caller was given.
      return inSpan(RETRIEVAL_SPAN, { attributes }, async (span) => {
        // The read path answers from the index when every hit is current; else the knowledge service does.
        const fromIndex = await reads?.searchEntries(caller, req);
        const hits = fromIndex ?? (await backends.knowledge.call('SearchEntries', req)).hits;
        span.setAttributes({
          ...retrievalProvenance(hits),
          'kb.retrieval.answered_by': fromIndex ? 'index' : 'knowledge',
        });
        return { body: hits.map((h) => entrySearchHitJson(h, body.include_content !== false)) };
      });
    },
  });
}
