import { Type } from '@sinclair/typebox';
import type { Caller } from '@kb/platform';
import type { Backends } from '../../clients/backends';
import type { RouteTable } from '../route';
import { Uuid } from '../schemas';
import {
  Entry,
  EntryCreate,
  EntryHistoryQuery,
  EntryListQuery,
  EntryUpdate,
  EntryVersion,
  PersonalEntryCreate,
  Translation,
} from '../entry-schemas';
import { entryInput, expectedVersion, listEntriesRequest } from '../entry-requests';
import { entryJson, entryResult, entryVersionJson, nextPageLink, translationJson } from '../entry-views';

const PATH = '/knowledge-entries';
const TAG = 'knowledge-entries';
const Params = Type.Object({ entry_id: Uuid });
const ETAG = { ETag: { description: 'The entry version as an entity tag, "<version>", for If-Match' } };

/** The knowledge-entry routes, in the order the OpenAPI document lists them. */
export function entryRoutes(routes: RouteTable, backends: Backends): void {
  entryWriteRoutes(routes, backends);
  entryReadRoutes(routes, backends);
  entryDeleteRoute(routes, backends);
  entryHistoryRoutes(routes, backends);
}

/** Create (shared or personal: the same call but for the flag) and update. */
function entryWriteRoutes(routes: RouteTable, backends: Backends): void {
  const create =
    (personal: boolean) =>
    async ({ body, caller }: { body: Record<string, unknown>; caller: Caller }) =>
      entryResult(await backends.knowledge.call('CreateEntry', { caller, input: entryInput(body), personal }), true);

  routes.define({
    method: 'post',
    path: PATH,
    operationId: 'createKnowledgeEntry',
    summary: 'Create a knowledge entry',
    description:
      'Needs knowledge:write; the role must be allowed to write the type (skill: Admin and Supervisor; skill_index: nobody, 403). ' +
      'visibility is required except for type memory (default internal); personal is a 422 here (use the personal route). ' +
      "metadata is validated against the type and replaced by its normalised value. translation_of (extension) joins that entry's " +
      'translation group (409 when the group already has the language). The response carries ETag "<version>".',
    tag: TAG,
    body: EntryCreate,
    responses: { 201: { description: 'Created', schema: Entry, headers: ETAG } },
    handler: create(false),
  });

  routes.define({
    method: 'post',
    path: `${PATH}/personal`,
    operationId: 'createPersonalEntry',
    summary: 'Create a personal note',
    description:
      "Type knowledge, visibility personal, free-form metadata. Only its owner (the token's user, else the token) ever sees it.",
    tag: TAG,
    body: PersonalEntryCreate,
    responses: { 201: { description: 'Created', schema: Entry, headers: ETAG } },
    handler: create(true),
  });

  routes.define({
    method: 'put',
    path: `${PATH}/{entry_id}`,
    operationId: 'updateKnowledgeEntry',
    summary: 'Update a knowledge entry',
    description:
      'Only sent fields change; null clears a nullable field. type cannot be sent (422). metadata is validated against the stored type: ' +
      'metadata that does not fit it (a rule JSON Schema cannot state here) is a 409 naming the problems. ' +
      'The write is conditioned on the version read: a concurrent write makes it 409. With If-Match: "<version>" a mismatch is 412. ' +
      'Every change keeps the previous state in the version history.',
    tag: TAG,
    params: Params,
    body: EntryUpdate,
    responses: {
      200: { description: 'The updated entry', schema: Entry, headers: ETAG },
      409: {
        description:
          "Changed concurrently (after this request read the entry), metadata that does not fit the entry's type, " +
          'or a visibility change from or to personal',
      },
      412: { description: 'If-Match is not the current version (or not an entity tag)' },
    },
    handler: async ({ params, body, caller, ctx }) => {
      const expected = expectedVersion(ctx.get('If-Match'));
      const input = entryInput(body as Record<string, unknown>);
      return entryResult(
        await backends.knowledge.call('UpdateEntry', { caller, entry_id: params.entry_id, input, ...expected }),
      );
    },
  });
}

function entryReadRoutes(routes: RouteTable, backends: Backends): void {
  routes.define({
    method: 'get',
    path: PATH,
    operationId: 'listKnowledgeEntries',
    summary: 'List knowledge entries',
    description:
      'Ordered by updated_at descending, then id. The visibility ceiling and personal ownership always apply. Expired memory entries ' +
      'only with include_expired=true. Extension: limit (default 100, max 500) and cursor; the next page is in the ' +
      'Link rel="next" header. A page also ends early when its next entry would take the entries past 8 MiB (at least one ' +
      'entry per page; the Link header then continues right after the last entry shown). ' +
      'A rule JSON Schema cannot state: cursor is an opaque token, used as the Link header gives it; any other cursor is a 422.',
    tag: TAG,
    query: EntryListQuery,
    responses: {
      200: {
        description: 'Entries',
        schema: Type.Array(Entry),
        headers: NEXT_LINK,
      },
    },
    handler: async ({ query, caller, ctx }) => {
      const res = await backends.knowledge.call('ListEntries', listEntriesRequest(caller, query));
      return { body: res.entries.map(entryJson), headers: nextPageHeaders(PATH, ctx.query, res.next_cursor) };
    },
  });

  routes.define({
    method: 'get',
    path: `${PATH}/{entry_id}`,
    operationId: 'getKnowledgeEntry',
    summary: 'Get a knowledge entry',
    description:
      '404 "Entry not found" for unknown, other-tenant and invisible entries alike. Carries ETag "<version>".',
    tag: TAG,
    extension: true,
    params: Params,
    responses: { 200: { description: 'The entry', schema: Entry, headers: ETAG } },
    handler: async ({ params, caller }) =>
      entryResult(await backends.knowledge.call('GetEntry', { caller, entry_id: params.entry_id })),
  });
}

function entryDeleteRoute(routes: RouteTable, backends: Backends): void {
  routes.define({
    method: 'delete',
    path: `${PATH}/{entry_id}`,
    operationId: 'deleteKnowledgeEntry',
    summary: 'Delete a knowledge entry',
    description:
      'Needs knowledge:write and a role that may write the type; the skill index cannot be deleted (403). If-Match is honoured (412). 204.',
    tag: TAG,
    extension: true,
    params: Params,
    responses: {
      204: { description: 'Deleted' },
      412: { description: 'If-Match is not the current version (or not an entity tag)' },
    },
    handler: async ({ params, caller, ctx }) => {
      const expected = expectedVersion(ctx.get('If-Match'));
      await backends.knowledge.call('DeleteEntry', { caller, entry_id: params.entry_id, ...expected });
      return { status: 204, body: null };
    },
  });
}

const NEXT_LINK = {
  Link: { description: 'The next page: <…>; rel="next" (absent on the last page)', required: false },
};

/** An answer that continues on a next page: the Link header to it when the service gave a cursor. */
function nextPageHeaders(
  path: string,
  query: Record<string, string | string[] | undefined>,
  cursor?: string | null,
): Record<string, string> {
  return cursor ? { Link: nextPageLink(path, query, cursor) } : {};
}

/** What an entry has been (its versions) and what it is in other languages (its translations). */
function entryHistoryRoutes(routes: RouteTable, backends: Backends): void {
  const page = (query: { limit?: number; cursor?: string }) => ({
    limit: query.limit ?? 100,
    ...(query.cursor ? { cursor: query.cursor } : {}),
  });

  routes.define({
    method: 'get',
    path: `${PATH}/{entry_id}/versions`,
    operationId: 'listKnowledgeEntryVersions',
    summary: 'Version history of an entry',
    description:
      'Every state the entry has had, oldest first, each with who wrote it (user id, audit source, client id) and when. ' +
      'Paged like the entry list: limit (default 100, max 500) and cursor, the next page in the Link rel="next" header; ' +
      'a page also ends early when its next state would take it past 8 MiB (at least one state per page). ' +
      'A rule JSON Schema cannot state: cursor is an opaque token, used as the Link header gives it; any other cursor is a 422 ' +
      '(an unknown entry is a 404 first).',
    tag: TAG,
    extension: true,
    params: Params,
    query: EntryHistoryQuery,
    responses: { 200: { description: 'Versions', schema: Type.Array(EntryVersion), headers: NEXT_LINK } },
    handler: async ({ params, query, caller, ctx }) => {
      const res = await backends.knowledge.call('ListEntryVersions', {
        caller,
        entry_id: params.entry_id,
        ...page(query),
      });
      return {
        body: res.versions.map(entryVersionJson),
        headers: nextPageHeaders(`${PATH}/${params.entry_id}/versions`, ctx.query, res.next_cursor),
      };
    },
  });

  routes.define({
    method: 'get',
    path: `${PATH}/{entry_id}/translations`,
    operationId: 'listKnowledgeEntryTranslations',
    summary: 'Translations of an entry',
    description:
      "The entry's translation group (the members the caller may see), with is_source and outdated: true when the source's title, " +
      "summary or content changed after the translation's own text was last edited. Paged like the versions (oldest member first). " +
      'A rule JSON Schema cannot state: cursor is an opaque token, used as the Link header gives it; any other cursor is a 422 ' +
      '(an unknown entry is a 404 first).',
    tag: TAG,
    extension: true,
    params: Params,
    query: EntryHistoryQuery,
    responses: { 200: { description: 'Translations', schema: Type.Array(Translation), headers: NEXT_LINK } },
    handler: async ({ params, query, caller, ctx }) => {
      const res = await backends.knowledge.call('ListTranslations', {
        caller,
        entry_id: params.entry_id,
        ...page(query),
      });
      return {
        body: res.translations.map(translationJson),
        headers: nextPageHeaders(`${PATH}/${params.entry_id}/translations`, ctx.query, res.next_cursor),
      };
    },
  });
}
