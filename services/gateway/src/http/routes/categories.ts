import { Type } from '@sinclair/typebox';
import type { knowledgeV1 } from '@kb/common';
import type { Backends } from '../../clients/backends';
import type { RouteTable } from '../route';
import { Category, CategoryCreate, CategoryUpdate, Uuid } from '../schemas';

/** Proto optional fields → the interface's explicit nulls. */
export function categoryJson(c: knowledgeV1.Category__Output) {
  return {
    id: c.id,
    tenant_id: c.tenant_id,
    name: c.name,
    description: c.description ?? null,
    parent_id: c.parent_id ?? null,
    sort_order: c.sort_order,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

export function categoryRoutes(routes: RouteTable, backends: Backends): void {
  routes.define({
    method: 'get',
    path: '/categories',
    operationId: 'listCategories',
    summary: 'List categories',
    description: 'Ordered by sort_order, then name. With parent_id: only the direct children of that parent.',
    tag: 'categories',
    query: Type.Object({ parent_id: Type.Optional(Uuid) }),
    responses: { 200: { description: 'Categories', schema: Type.Array(Category) } },
    handler: async ({ query, caller }) => {
      const res = await backends.knowledge.call('ListCategories', { caller, ...(query.parent_id ? { parent_id: query.parent_id } : {}) });
      return { body: res.categories.map(categoryJson) };
    },
  });

  routes.define({
    method: 'get',
    path: '/categories/{category_id}',
    operationId: 'getCategory',
    summary: 'Get a category',
    tag: 'categories',
    params: Type.Object({ category_id: Uuid }),
    responses: { 200: { description: 'The category', schema: Category } },
    handler: async ({ params, caller }) => ({
      body: categoryJson(await backends.knowledge.call('GetCategory', { caller, category_id: params.category_id })),
    }),
  });

  routes.define({
    method: 'post',
    path: '/categories',
    operationId: 'createCategory',
    summary: 'Create a category',
    tag: 'categories',
    extension: true,
    body: CategoryCreate,
    responses: { 201: { description: 'Created', schema: Category } },
    handler: async ({ body, caller }) => {
      const created = await backends.knowledge.call('CreateCategory', {
        caller,
        name: body.name,
        ...(body.description != null ? { description: body.description } : {}),
        ...(body.parent_id != null ? { parent_id: body.parent_id } : {}),
        sort_order: body.sort_order ?? 0,
      });
      return { status: 201, body: categoryJson(created), headers: { Location: `/api/knowledge/categories/${created.id}` } };
    },
  });

  routes.define({
    method: 'put',
    path: '/categories/{category_id}',
    operationId: 'updateCategory',
    summary: 'Update a category',
    description:
      'Only sent fields change. parent_id sent as null moves the category to the top level; not sent leaves it. The parent must exist ' +
      'and may not be the category itself or one of its descendants (422).',
    tag: 'categories',
    params: Type.Object({ category_id: Uuid }),
    body: CategoryUpdate,
    responses: { 200: { description: 'The updated category', schema: Category } },
    handler: async ({ params, body, caller }) => {
      const b = body as Record<string, unknown>;
      const updated = await backends.knowledge.call('UpdateCategory', {
        caller,
        category_id: params.category_id,
        sent_fields: Object.keys(b),
        ...(typeof b.name === 'string' ? { name: b.name } : {}),
        ...(typeof b.description === 'string' ? { description: b.description } : {}),
        ...(typeof b.parent_id === 'string' ? { parent_id: b.parent_id } : {}),
        ...(typeof b.sort_order === 'number' ? { sort_order: b.sort_order } : {}),
      });
      return { body: categoryJson(updated) };
    },
  });

  routes.define({
    method: 'delete',
    path: '/categories/{category_id}',
    operationId: 'deleteCategory',
    summary: 'Delete a category',
    description: 'Needs knowledge:admin. 409 while the category has child categories or knowledge entries. 204.',
    tag: 'categories',
    extension: true,
    params: Type.Object({ category_id: Uuid }),
    responses: { 204: { description: 'Deleted' }, 409: { description: 'Has children or entries' } },
    handler: async ({ params, caller }) => {
      await backends.knowledge.call('DeleteCategory', { caller, category_id: params.category_id });
      return { status: 204, body: null };
    },
  });
}
