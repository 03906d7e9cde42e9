import { Type } from '@sinclair/typebox';
import type { Backends } from '../../clients/backends';
import { API_PREFIX, created, type RouteTable } from '../route';
import { Category, CategoryCreate, CategoryUpdate, Uuid } from '../schemas';
import { createCategoryRequest, listCategoriesRequest, updateCategoryRequest } from '../entry-requests';
import { categoryJson } from '../entry-views';

const TAG = 'categories';
const Params = Type.Object({ category_id: Uuid });

/** The category routes, in the order the OpenAPI document lists them. */
export function categoryRoutes(routes: RouteTable, backends: Backends): void {
  categoryReadRoutes(routes, backends);
  categoryWriteRoutes(routes, backends);
}

function categoryReadRoutes(routes: RouteTable, backends: Backends): void {
  routes.define({
    method: 'get',
    path: '/categories',
    operationId: 'listCategories',
    summary: 'List categories',
    description: 'Ordered by sort_order, then name. With parent_id: only the direct children of that parent.',
    tag: TAG,
    query: Type.Object({ parent_id: Type.Optional(Uuid) }),
    responses: { 200: { description: 'Categories', schema: Type.Array(Category) } },
    handler: async ({ query, caller }) => {
      const res = await backends.knowledge.call('ListCategories', listCategoriesRequest(caller, query));
      return { body: res.categories.map(categoryJson) };
    },
  });

  routes.define({
    method: 'get',
    path: '/categories/{category_id}',
    operationId: 'getCategory',
    summary: 'Get a category',
    tag: TAG,
    params: Params,
    responses: { 200: { description: 'The category', schema: Category } },
    handler: async ({ params, caller }) => ({
      body: categoryJson(await backends.knowledge.call('GetCategory', { caller, category_id: params.category_id })),
    }),
  });
}

function categoryWriteRoutes(routes: RouteTable, backends: Backends): void {
  routes.define({
    method: 'post',
    path: '/categories',
    operationId: 'createCategory',
    summary: 'Create a category',
    tag: TAG,
    extension: true,
    body: CategoryCreate,
    responses: { 201: { description: 'Created', schema: Category } },
    handler: async ({ body, caller }) => {
      const category = await backends.knowledge.call('CreateCategory', createCategoryRequest(caller, body));
      return created(categoryJson(category), `${API_PREFIX}/categories/${category.id}`);
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
    tag: TAG,
    params: Params,
    body: CategoryUpdate,
    responses: { 200: { description: 'The updated category', schema: Category } },
    handler: async ({ params, body, caller }) => ({
      body: categoryJson(
        await backends.knowledge.call('UpdateCategory', updateCategoryRequest(caller, params.category_id, body)),
      ),
    }),
  });

  routes.define({
    method: 'delete',
    path: '/categories/{category_id}',
    operationId: 'deleteCategory',
    summary: 'Delete a category',
    description: 'Needs knowledge:admin. 409 while the category has child categories or knowledge entries. 204.',
    tag: TAG,
    extension: true,
    params: Params,
    responses: { 204: { description: 'Deleted' }, 409: { description: 'Has children or entries' } },
    handler: async ({ params, caller }) => {
      await backends.knowledge.call('DeleteCategory', { caller, category_id: params.category_id });
      return { status: 204, body: null };
    },
  });
}
