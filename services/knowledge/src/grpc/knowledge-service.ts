import { type Logger, type knowledgeV1, unary, requireCaller } from '@kb/common';
import type { CategoryUseCases } from '../domain/categories';
import { authenticateApiToken, resolveTenant } from '../domain/authentication';
import type { TenantsRepo } from '../data-access/tenants-repo';
import type { TokensRepo } from '../data-access/tokens-repo';
import { categoryMessage, tenantMessage } from './mappers';

interface Deps {
  logger: Logger;
  tenants: TenantsRepo;
  tokens: TokensRepo;
  categories: CategoryUseCases;
}

/** Thin gRPC adapters: unpack the request, call the use case, map records to messages. */
export function knowledgeServiceImpl(deps: Deps): knowledgeV1.KnowledgeServiceHandlers {
  return {
    ResolveTenant: unary(deps.logger, 'ResolveTenant', async (req: knowledgeV1.ResolveTenantRequest__Output) =>
      tenantMessage(await resolveTenant(deps.tenants, { tenantId: req.tenant_id || undefined, host: req.host || undefined })),
    ),

    AuthenticateApiToken: unary(deps.logger, 'AuthenticateApiToken', async (req: knowledgeV1.AuthenticateApiTokenRequest__Output) => {
      const caller = requireCaller(req.caller);
      const token = await authenticateApiToken(deps.tokens, caller.tenant_id, req.token_sha256);
      return {
        token_id: token.id,
        user_id: token.user_id ?? '',
        role: token.role,
        scopes: token.scopes,
        workspace_ids: token.workspace_ids,
        name: token.name ?? '',
      };
    }),

    ListCategories: unary(deps.logger, 'ListCategories', async (req: knowledgeV1.ListCategoriesRequest__Output) => ({
      categories: (await deps.categories.list(req.caller, req.parent_id)).map(categoryMessage),
    })),

    GetCategory: unary(deps.logger, 'GetCategory', async (req: knowledgeV1.GetCategoryRequest__Output) =>
      categoryMessage(await deps.categories.get(req.caller, req.category_id)),
    ),

    CreateCategory: unary(deps.logger, 'CreateCategory', async (req: knowledgeV1.CreateCategoryRequest__Output) =>
      categoryMessage(
        await deps.categories.create(req.caller, {
          name: req.name,
          description: req.description ?? null,
          parent_id: req.parent_id ?? null,
          sort_order: req.sort_order,
        }),
      ),
    ),
  };
}
