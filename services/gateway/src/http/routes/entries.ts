import { Type } from '@sinclair/typebox';
import { AppError } from '@kb/common';
import type { Backends } from '../../clients/backends';
import { API_PREFIX, type RouteTable } from '../route';
import { Uuid } from '../schemas';
import {
  Entry,
  EntryCreate,
  EntryListQuery,
  EntryUpdate,
  EntryVersion,
  PersonalEntryCreate,
  Translation,
  entryInput,
  entryJson,
  etag,
  ifMatchVersion,
} from '../entry-schemas';

const PATH = '/knowledge-entries';
const Params = Type.Object({ entry_id: Uuid });

function expectedVersion(header: string | undefined): number | undefined {
  const v = ifMatchVersion(header);
  if (v !== undefined && Number.isNaN(v)) throw new AppError('precondition_failed', 'If-Match must be an ETag of this entry, e.g. "3"');
  return v;
}

export function entryRoutes(routes: RouteTable, backends: Backends): void {
  const entryResponse = (e: Parameters<typeof entryJson>[0], status = 200, extra: Record<string, string> = {}) => ({
    status,
    body: entryJson(e),
    headers: { ETag: etag(e.version), ...extra },
  });

  routes.define({
    method: 'post',
    path: PATH,
    operationId: 'createKnowledgeEntry',
    summary: 'Create a knowledge entry',
    description:
      'Needs knowledge:write; the role must be allowed to write the type (skill: Admin and Supervisor; skill_index: nobody, 403). ' +
      'visibility is required except for type memory (default internal); personal is a 422 here (use the personal route). ' +
      'metadata is validated against the type and replaced by its normalised value. translation_of (extension) joins that entry\'s ' +
      'translation group (409 when the group already has the language). The response carries ETag "<version>".',
    tag: 'knowledge-entries',
    body: EntryCreate,
    responses: { 201: { description: 'Created', schema: Entry } },
    handler: async ({ body, caller }) => {
      const created = await backends.knowledge.call('CreateEntry', { caller, input: entryInput(body), personal: false });
      return entryResponse(created, 201, { Location: `${API_PREFIX}${PATH}/${created.id}` });
    },
  });

  routes.define({
    method: 'post',
    path: `${PATH}/personal`,
    operationId: 'createPersonalEntry',
    summary: 'Create a personal note',
    description: 'Type knowledge, visibility personal, free-form metadata. Only its owner (the token\'s user, else the token) ever sees it.',
    tag: 'knowledge-entries',
    body: PersonalEntryCreate,
    responses: { 201: { description: 'Created', schema: Entry } },
    handler: async ({ body, caller }) => {
      const created = await backends.knowledge.call('CreateEntry', { caller, input: entryInput(body), personal: true });
      return entryResponse(created, 201, { Location: `${API_PREFIX}${PATH}/${created.id}` });
    },
  });

  routes.define({
    method: 'put',
    path: `${PATH}/{entry_id}`,
    operationId: 'updateKnowledgeEntry',
    summary: 'Update a knowledge entry',
    description:
      'Only sent fields change; null clears a nullable field. type cannot be sent (422). metadata is validated against the stored type. ' +
      'The write is conditioned on the version read: a concurrent write makes it 409. With If-Match: "<version>" a mismatch is 412. ' +
      'Every change keeps the previous state in the version history.',
    tag: 'knowledge-entries',
    params: Params,
    body: EntryUpdate,
    responses: { 200: { description: 'The updated entry', schema: Entry }, 409: { description: 'Changed concurrently' }, 412: { description: 'If-Match does not match' } },
    handler: async ({ params, body, caller, ctx }) => {
      const expected = expectedVersion(ctx.get('If-Match') || undefined);
      const updated = await backends.knowledge.call('UpdateEntry', {
        caller,
        entry_id: params.entry_id,
        input: entryInput(body as Record<string, unknown>),
        ...(expected !== undefined ? { expected_version: expected } : {}),
      });
      return entryResponse(updated);
    },
  });

  routes.define({
    method: 'get',
    path: PATH,
    operationId: 'listKnowledgeEntries',
    summary: 'List knowledge entries',
    description:
      'Ordered by updated_at descending, then id. The visibility ceiling and personal ownership always apply. Expired memory entries ' +
      'only with include_expired=true. Extension: limit (default 100, max 500) and cursor; the next page is in the Link rel="next" header.',
    tag: 'knowledge-entries',
    query: EntryListQuery,
    responses: { 200: { description: 'Entries', schema: Type.Array(Entry) } },
    handler: async ({ query, caller, ctx }) => {
      const res = await backends.knowledge.call('ListEntries', {
        caller,
        ...(query.category_id ? { category_id: query.category_id } : {}),
        ...(query.type ? { type: query.type } : {}),
        ...(query.project_id ? { project_id: query.project_id } : {}),
        ...(query.visibility ? { visibility: query.visibility } : {}),
        ...(query.layer !== undefined ? { layer: query.layer } : {}),
        include_expired: query.include_expired ?? false,
        limit: query.limit ?? 100,
        ...(query.cursor ? { cursor: query.cursor } : {}),
      });
      const headers: Record<string, string> = {};
      if (res.next_cursor) {
        const next = new URLSearchParams();
        for (const [k, v] of Object.entries(ctx.query)) {
          if (k === 'cursor' || v === undefined) continue;
          for (const item of Array.isArray(v) ? v : [v]) next.append(k, item);
        }
        next.set('cursor', res.next_cursor);
        headers.Link = `<${API_PREFIX}${PATH}?${next.toString()}>; rel="next"`;
      }
      return { body: res.entries.map(entryJson), headers };
    },
  });

  routes.define({
    method: 'get',
    path: `${PATH}/{entry_id}`,
    operationId: 'getKnowledgeEntry',
    summary: 'Get a knowledge entry',
    description: '404 "Entry not found" for unknown, other-tenant and invisible entries alike. Carries ETag "<version>".',
    tag: 'knowledge-entries',
    extension: true,
    params: Params,
    responses: { 200: { description: 'The entry', schema: Entry } },
    handler: async ({ params, caller }) => entryResponse(await backends.knowledge.call('GetEntry', { caller, entry_id: params.entry_id })),
  });

  routes.define({
    method: 'delete',
    path: `${PATH}/{entry_id}`,
    operationId: 'deleteKnowledgeEntry',
    summary: 'Delete a knowledge entry',
    description: 'Needs knowledge:write and a role that may write the type; the skill index cannot be deleted (403). If-Match is honoured (412). 204.',
    tag: 'knowledge-entries',
    extension: true,
    params: Params,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ params, caller, ctx }) => {
      const expected = expectedVersion(ctx.get('If-Match') || undefined);
      await backends.knowledge.call('DeleteEntry', {
        caller,
        entry_id: params.entry_id,
        ...(expected !== undefined ? { expected_version: expected } : {}),
      });
      return { status: 204, body: null };
    },
  });

  routes.define({
    method: 'get',
    path: `${PATH}/{entry_id}/versions`,
    operationId: 'listKnowledgeEntryVersions',
    summary: 'Version history of an entry',
    description: 'Every state the entry has had, oldest first, each with who wrote it (user id, audit source, client id) and when.',
    tag: 'knowledge-entries',
    extension: true,
    params: Params,
    responses: { 200: { description: 'Versions', schema: Type.Array(EntryVersion) } },
    handler: async ({ params, caller }) => {
      const res = await backends.knowledge.call('ListEntryVersions', { caller, entry_id: params.entry_id });
      return {
        body: res.versions.map((v) => ({
          version: v.version,
          action: v.action,
          changed_at: v.changed_at,
          changed_by_user_id: v.changed_by_user_id ?? null,
          audit_source: v.audit_source,
          client_id: v.client_id ?? null,
          entry: entryJson(v.entry!),
        })),
      };
    },
  });

  routes.define({
    method: 'get',
    path: `${PATH}/{entry_id}/translations`,
    operationId: 'listKnowledgeEntryTranslations',
    summary: 'Translations of an entry',
    description:
      'The entry\'s translation group (the members the caller may see), with is_source and outdated: true when the source\'s title, ' +
      'summary or content changed after the translation\'s own text was last edited.',
    tag: 'knowledge-entries',
    extension: true,
    params: Params,
    responses: { 200: { description: 'Translations', schema: Type.Array(Translation) } },
    handler: async ({ params, caller }) => {
      const res = await backends.knowledge.call('ListTranslations', { caller, entry_id: params.entry_id });
      return { body: res.translations.map((t) => ({ entry: entryJson(t.entry!), is_source: t.is_source, outdated: t.outdated })) };
    },
  });
}
