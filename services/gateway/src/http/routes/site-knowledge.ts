import { Type } from '@sinclair/typebox';
import type { Backends } from '../../clients/backends';
import type { RouteTable } from '../route';
import { SiteKnowledgeAssign, SiteKnowledgeResult } from '../entry-schemas';
import { siteKnowledgeJson } from '../entry-views';

export function siteKnowledgeRoutes(routes: RouteTable, backends: Backends): void {
  routes.define({
    method: 'put',
    path: '/sites/{site_id}/knowledge',
    operationId: 'assignSiteKnowledge',
    summary: 'Assign knowledge entries to a site',
    description:
      'entry_ids: 1-500 uuids (duplicates count once). Answers {site_id, assigned, already_assigned, not_found}: two counts and the ids ' +
      'not found; entries the caller cannot see count as not found. 404 "Site not found" for an unknown site (uuid or slug).',
    tag: 'sites',
    params: Type.Object({ site_id: Type.String({ minLength: 1, maxLength: 200, description: 'site uuid (or slug)' }) }),
    body: SiteKnowledgeAssign,
    responses: { 200: { description: 'Assignment result', schema: SiteKnowledgeResult } },
    handler: async ({ params, body, caller }) => {
      const site = await backends.catalog.call('GetSite', { caller, site_id: params.site_id });
      const res = await backends.knowledge.call('AssignEntriesToSite', {
        caller,
        site_id: site.id,
        entry_ids: body.entry_ids,
      });
      return { body: siteKnowledgeJson(res) };
    },
  });
}
