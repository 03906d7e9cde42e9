import { type Logger, type knowledgeV1, unary, requireCaller } from '@kb/common';
import type { CategoryUseCases } from '../domain/categories';
import type { EntryUseCases } from '../domain/entries';
import { authenticateApiToken, resolveTenant } from '../domain/authentication';
import type { TenantsRepo } from '../data-access/tenants-repo';
import type { TokensRepo } from '../data-access/tokens-repo';
import { categoryMessage, entryMessage, entryVersionMessage, tenantMessage } from './mappers';

interface Deps {
  logger: Logger;
  tenants: TenantsRepo;
  tokens: TokensRepo;
  categories: CategoryUseCases;
  entries: EntryUseCases;
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

    UpdateCategory: unary(deps.logger, 'UpdateCategory', async (req: knowledgeV1.UpdateCategoryRequest__Output) => {
      const sent = new Set(req.sent_fields);
      const changes: Parameters<CategoryUseCases['update']>[2] = {};
      if (sent.has('name') && req.name !== undefined) changes.name = req.name;
      if (sent.has('description')) changes.description = req.description ?? null;
      if (sent.has('parent_id')) changes.parent_id = req.parent_id ?? null;
      if (sent.has('sort_order') && req.sort_order !== undefined) changes.sort_order = req.sort_order;
      return categoryMessage(await deps.categories.update(req.caller, req.category_id, changes));
    }),

    DeleteCategory: unary(deps.logger, 'DeleteCategory', async (req: knowledgeV1.DeleteCategoryRequest__Output) => {
      await deps.categories.remove(req.caller, req.category_id);
      return { id: req.category_id };
    }),

    CreateEntry: unary(deps.logger, 'CreateEntry', async (req: knowledgeV1.CreateEntryRequest__Output) =>
      entryMessage(await deps.entries.create(req.caller, emptyInput(req.input), req.personal)),
    ),

    UpdateEntry: unary(deps.logger, 'UpdateEntry', async (req: knowledgeV1.UpdateEntryRequest__Output) =>
      entryMessage(await deps.entries.update(req.caller, req.entry_id, emptyInput(req.input), req.expected_version ?? undefined)),
    ),

    GetEntry: unary(deps.logger, 'GetEntry', async (req: knowledgeV1.GetEntryRequest__Output) =>
      entryMessage(await deps.entries.get(req.caller, req.entry_id)),
    ),

    DeleteEntry: unary(deps.logger, 'DeleteEntry', async (req: knowledgeV1.DeleteEntryRequest__Output) => {
      await deps.entries.remove(req.caller, req.entry_id, req.expected_version ?? undefined);
      return { id: req.entry_id };
    }),

    ListEntries: unary(deps.logger, 'ListEntries', async (req: knowledgeV1.ListEntriesRequest__Output) => {
      const page = await deps.entries.list(req.caller, req);
      return { entries: page.entries.map(entryMessage), ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}) };
    }),

    ListEntryVersions: unary(deps.logger, 'ListEntryVersions', async (req: knowledgeV1.GetEntryRequest__Output) => ({
      versions: (await deps.entries.versions(req.caller, req.entry_id)).map(entryVersionMessage),
    })),

    ListTranslations: unary(deps.logger, 'ListTranslations', async (req: knowledgeV1.GetEntryRequest__Output) => {
      const group = await deps.entries.translations(req.caller, req.entry_id);
      return {
        translation_group_id: group.groupId,
        translations: group.members.map((m) => ({ entry: entryMessage(m.entry), is_source: m.isSource, outdated: m.outdated })),
      };
    }),

    SearchEntries: unary(deps.logger, 'SearchEntries', async (req: knowledgeV1.SearchEntriesRequest__Output) => ({
      hits: (await deps.entries.search(req.caller, req)).map((h) => ({ entry: entryMessage(h.entry), score: h.score, score_sources: h.score_sources })),
    })),

    AssignEntriesToSite: unary(deps.logger, 'AssignEntriesToSite', async (req: knowledgeV1.AssignEntriesToSiteRequest__Output) =>
      deps.entries.assignSite(req.caller, req.site_id, req.entry_ids),
    ),
  };
}

function emptyInput(input: knowledgeV1.EntryInput__Output | null): knowledgeV1.EntryInput__Output {
  return input ?? ({ tags: [], search_keywords: [], project_ids: [], sent_fields: [] } as unknown as knowledgeV1.EntryInput__Output);
}
