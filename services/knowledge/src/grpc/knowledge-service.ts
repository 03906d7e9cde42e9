import { type ErrorMapper, type Logger, type knowledgeV1, requireCaller, unaryMapping } from '@kb/platform';
import { answerItemBytes } from '@kb/rules';
import type { CategoryUseCases } from '../domain/categories';
import type { EntryUseCases } from '../domain/entries';
import type { AuthenticationUseCases } from '../domain/authentication';
import {
  apiTokenMessage,
  categoryChanges,
  categoryInput,
  categoryMessage,
  entryInput,
  entryListRequest,
  entryMessage,
  entrySearchHitMessage,
  entrySearchRequest,
  entryVersionMessage,
  tenantMessage,
  translationMessage,
} from './mappers';

interface Deps {
  logger: Logger;
  authentication: AuthenticationUseCases;
  categories: CategoryUseCases;
  entries: EntryUseCases;
}

/**
 * Thin gRPC adapters: decode the request, call one use case, map domain objects to messages. One
 * table rather than a file per handler: each handler is a line or two, and the table is the
 * service. `mapError` turns what the storage throws into the error model (MongoDB not reachable: UNAVAILABLE);
 * `requireUp` refuses every call at once while MongoDB is known down.
 */
export function knowledgeServiceImpl(
  deps: Deps,
  mapError: ErrorMapper,
  requireUp?: () => void,
): knowledgeV1.KnowledgeServiceHandlers {
  const { logger, authentication, categories, entries } = deps;
  const unary = unaryMapping(mapError, requireUp);
  return {
    ResolveTenant: unary(logger, 'ResolveTenant', async (req: knowledgeV1.ResolveTenantRequest__Output) =>
      tenantMessage(
        await authentication.resolveTenant({ tenantId: req.tenant_id || undefined, host: req.host || undefined }),
      ),
    ),
    AuthenticateApiToken: unary(
      logger,
      'AuthenticateApiToken',
      async (req: knowledgeV1.AuthenticateApiTokenRequest__Output) =>
        apiTokenMessage(
          await authentication.authenticateApiToken(requireCaller(req.caller).tenant_id, req.token_sha256),
        ),
    ),

    ListCategories: unary(logger, 'ListCategories', async (req: knowledgeV1.ListCategoriesRequest__Output) => ({
      categories: (await categories.list(req.caller, req.parent_id)).map(categoryMessage),
    })),
    GetCategory: unary(logger, 'GetCategory', async (req: knowledgeV1.GetCategoryRequest__Output) =>
      categoryMessage(await categories.get(req.caller, req.category_id)),
    ),
    CreateCategory: unary(logger, 'CreateCategory', async (req: knowledgeV1.CreateCategoryRequest__Output) =>
      categoryMessage(await categories.create(req.caller, categoryInput(req))),
    ),
    UpdateCategory: unary(logger, 'UpdateCategory', async (req: knowledgeV1.UpdateCategoryRequest__Output) =>
      categoryMessage(await categories.update(req.caller, req.category_id, categoryChanges(req))),
    ),
    DeleteCategory: unary(logger, 'DeleteCategory', async (req: knowledgeV1.DeleteCategoryRequest__Output) => {
      await categories.remove(req.caller, req.category_id);
      return { id: req.category_id };
    }),

    CreateEntry: unary(logger, 'CreateEntry', async (req: knowledgeV1.CreateEntryRequest__Output) =>
      entryMessage(await entries.create(req.caller, entryInput(req.input), req.personal)),
    ),
    UpdateEntry: unary(logger, 'UpdateEntry', async (req: knowledgeV1.UpdateEntryRequest__Output) =>
      entryMessage(
        await entries.update(req.caller, req.entry_id, entryInput(req.input), req.expected_version ?? undefined),
      ),
    ),
    GetEntry: unary(logger, 'GetEntry', async (req: knowledgeV1.GetEntryRequest__Output) =>
      entryMessage(await entries.get(req.caller, req.entry_id)),
    ),
    DeleteEntry: unary(logger, 'DeleteEntry', async (req: knowledgeV1.DeleteEntryRequest__Output) => {
      await entries.remove(req.caller, req.entry_id, req.expected_version ?? undefined);
      return { id: req.entry_id };
    }),
    ListEntries: unary(logger, 'ListEntries', async (req: knowledgeV1.ListEntriesRequest__Output) => {
      const sent = measured(entryMessage);
      const page = await entries.list(req.caller, entryListRequest(req), sent.bytes);
      return {
        entries: page.entries.map(sent.message),
        ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
      };
    }),
    ListEntryVersions: unary(logger, 'ListEntryVersions', async (req: knowledgeV1.ListEntryVersionsRequest__Output) => {
      const sent = measured(entryVersionMessage);
      const page = await entries.versions(req.caller, req.entry_id, pageOf(req), sent.bytes);
      return {
        versions: page.versions.map(sent.message),
        ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
      };
    }),
    ListTranslations: unary(logger, 'ListTranslations', async (req: knowledgeV1.ListTranslationsRequest__Output) => {
      const sent = measured(translationMessage);
      const group = await entries.translations(req.caller, req.entry_id, pageOf(req), sent.bytes);
      return {
        translation_group_id: group.groupId,
        translations: group.members.map(sent.message),
        ...(group.nextCursor ? { next_cursor: group.nextCursor } : {}),
      };
    }),
    SearchEntries: unary(logger, 'SearchEntries', async (req: knowledgeV1.SearchEntriesRequest__Output) => {
      const sent = measured(entrySearchHitMessage);
      return { hits: (await entries.search(req.caller, entrySearchRequest(req), sent.bytes)).map(sent.message) };
    }),
    EntrySearchAccess: unary(
      logger,
      'EntrySearchAccess',
      async (req: knowledgeV1.EntrySearchAccessRequest__Output): Promise<knowledgeV1.EntrySearchAccessResponse> => {
        const { filter, entries: states } = await entries.searchAccess(req.caller, req.entry_ids);
        return {
          visibilities: filter.visibilities,
          owner_user_id: filter.owner_user_id,
          workspace_scoped: filter.workspace_scoped,
          workspace_ids: filter.workspace_ids,
          entries: states,
        };
      },
    ),
    AssignEntriesToSite: unary(
      logger,
      'AssignEntriesToSite',
      async (req: knowledgeV1.AssignEntriesToSiteRequest__Output) =>
        entries.assignSite(req.caller, req.site_id, req.entry_ids),
    ),
    ForgetSite: unary(logger, 'ForgetSite', async (req: knowledgeV1.ForgetSiteRequest__Output) =>
      entries.forgetSite(req.caller, req.site_id),
    ),
  };
}

/** A page request's limit (0: the default) and cursor. */
function pageOf(req: { limit: number; cursor?: string | null }): { limit: number; cursor?: string } {
  return { limit: req.limit, ...(req.cursor ? { cursor: req.cursor } : {}) };
}

/**
 * Where an answer's byte budget meets its messages: `bytes` builds an item's message and measures
 * it (the use case cuts the answer with it), `message` hands back the message already built.
 */
function measured<T extends object, M>(build: (item: T) => M): { bytes: (item: T) => number; message: (item: T) => M } {
  const built = new WeakMap<T, M>();
  const message = (item: T): M => {
    let m = built.get(item);
    if (m === undefined) {
      m = build(item);
      built.set(item, m);
    }
    return m;
  };
  return { bytes: (item) => answerItemBytes(message(item)), message };
}
