import { Type } from '@sinclair/typebox';
import { AppError } from '@kb/platform';
import type { Backends } from '../../clients/backends';
import { created, type RouteTable } from '../route';
import { createSiteRequest, updateSiteRequest } from '../catalog-requests';
import { Uuid } from '../schemas';
import { Site, SiteCreate, SiteUpdate } from '../catalog-schemas';
import { siteJson } from '../catalog-views';

export function siteRoutes(routes: RouteTable, backends: Backends): void {
  siteReadRoutes(routes, backends);
  siteWriteRoutes(routes, backends);
}

function siteReadRoutes(routes: RouteTable, backends: Backends): void {
  routes.define({
    method: 'get',
    path: '/sites',
    operationId: 'listSites',
    summary: 'List sites',
    description: 'The default site first, then by slug.',
    tag: 'sites',
    responses: { 200: { description: 'Sites', schema: Type.Array(Site) } },
    handler: async ({ caller }) => ({
      body: (await backends.catalog.call('ListSites', { caller })).sites.map(siteJson),
    }),
  });

  routes.define({
    method: 'get',
    path: '/sites/{site_id}',
    operationId: 'getSite',
    summary: 'Get a site',
    tag: 'sites',
    params: Type.Object({ site_id: Uuid }),
    responses: { 200: { description: 'The site', schema: Site } },
    handler: async ({ params, caller }) => ({
      body: siteJson(await backends.catalog.call('GetSite', { caller, site_id: params.site_id })),
    }),
  });
}

function siteWriteRoutes(routes: RouteTable, backends: Backends): void {
  routes.define({
    method: 'post',
    path: '/sites',
    operationId: 'createSite',
    summary: 'Create a site',
    description:
      'Needs knowledge:write. The slug is unique per tenant (409 otherwise) and immutable. The first site of a ' +
      'tenant is its default; is_default: true makes the new site the default (the previous one stops being it).',
    tag: 'sites',
    extension: true,
    body: SiteCreate,
    responses: { 201: { description: 'Created', schema: Site } },
    handler: async ({ body, caller }) => {
      const site = await backends.catalog.call('CreateSite', createSiteRequest(caller, body));
      return created(siteJson(site), `/api/knowledge/sites/${site.id}`);
    },
  });

  routes.define({
    method: 'put',
    path: '/sites/{site_id}',
    operationId: 'updateSite',
    summary: 'Update a site',
    description:
      'Fields not sent keep their value; null clears domain and platform and leaves the other fields. ' +
      'is_default: true makes this the default site (the previous default stops being it); is_default: false ' +
      'on the default site is a 409 (make another site the default instead). The slug cannot be changed.',
    tag: 'sites',
    params: Type.Object({ site_id: Uuid }),
    body: SiteUpdate,
    responses: { 200: { description: 'The site', schema: Site } },
    handler: async ({ params, body, caller }) => ({
      body: siteJson(await backends.catalog.call('UpdateSite', updateSiteRequest(caller, params.site_id, body))),
    }),
  });

  routes.define({
    method: 'delete',
    path: '/sites/{site_id}',
    operationId: 'deleteSite',
    summary: 'Delete a site',
    description:
      'Needs knowledge:admin. 409 while the site has products, and for the ' +
      'default site while other sites exist (make another one the default first). The site is taken off ' +
      'every knowledge entry, and an assignment racing the delete is a 404 that leaves it on none.',
    tag: 'sites',
    extension: true,
    params: Type.Object({ site_id: Uuid }),
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ params, caller }) => {
      // Entries' site_ids belong to the knowledge service: the site is taken off them once the
      // catalog has deleted it, and again when a retried delete finds it gone (finishing a sweep
      // that failed). Idempotent; decisions.md, "A deleted site on no entry".
      const forget = () => backends.knowledge.call('ForgetSite', { caller, site_id: params.site_id });
      try {
        await backends.catalog.call('DeleteSite', { caller, site_id: params.site_id });
      } catch (err) {
        if (err instanceof AppError && err.kind === 'not_found') await forget();
        throw err;
      }
      await forget();
      return { status: 204, body: null };
    },
  });
}
