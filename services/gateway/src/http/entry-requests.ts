import type { Static } from '@sinclair/typebox';
import { AppError, present, type Caller, type knowledgeV1 } from '@kb/platform';
import { normaliseDateTime } from '@kb/rules';
import type { EntryListQuery, EntrySearch } from './entry-schemas';
import type { CategoryCreate, CategoryUpdate } from './schemas';

// Validated requests → knowledge.v1 requests, for the entry, category and search routes.

/** A validated body → the proto input: every sent key is named, so null and absent stay apart. */
export function entryInput(body: Record<string, unknown>): knowledgeV1.EntryInput {
  const input: Record<string, unknown> = {
    sent_fields: Object.keys(body).map((k) => (k === 'metadata' ? 'metadata_json' : k)),
  };
  for (const [key, value] of Object.entries(body)) {
    if (value === null || value === undefined) continue;
    if (key === 'metadata') input.metadata_json = JSON.stringify(value);
    else input[key] = value;
  }
  return input as knowledgeV1.EntryInput;
}

/**
 * The version an If-Match header asks the write to be conditioned on: none for no header or
 * `*`, a 412 when it is not an ETag of an entry.
 */
export function expectedVersion(header: string): { expected_version?: number } {
  if (!header || header.trim() === '*') return {};
  const m = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(header.split(',')[0] ?? '');
  if (!m) throw new AppError('precondition_failed', 'If-Match must be an ETag of this entry, e.g. "3"');
  return { expected_version: Number(m[1]) };
}

export function listEntriesRequest(
  caller: Caller,
  query: Static<typeof EntryListQuery>,
): knowledgeV1.ListEntriesRequest {
  return {
    caller,
    ...present({
      category_id: query.category_id,
      type: query.type,
      project_id: query.project_id,
      visibility: query.visibility,
    }),
    ...present({ layer: query.layer, cursor: query.cursor }),
    include_expired: query.include_expired ?? false,
    limit: query.limit ?? 100,
  };
}

export function searchEntriesRequest(
  caller: Caller,
  body: Static<typeof EntrySearch>,
): knowledgeV1.SearchEntriesRequest {
  return {
    caller,
    query: body.query,
    limit: body.limit ?? 10,
    types: body.types ?? [],
    ...(body.tags && body.tags.length > 0 ? { tags: body.tags } : {}),
    ...present({
      category_id: body.category_id,
      language: body.language,
      passages: body.passages,
      min_relevance: body.min_relevance,
      // RFC 3339 UTC onwards, whichever accepted form the caller wrote (checked by its schema).
      updated_after: body.updated_after === undefined ? undefined : normaliseDateTime(body.updated_after),
    }),
    // Content left out on the way from the knowledge service too (up to 100,000 characters a hit).
    ...(body.include_content === false ? { include_content: false } : {}),
  };
}

export function listCategoriesRequest(
  caller: Caller,
  query: { parent_id?: string },
): knowledgeV1.ListCategoriesRequest {
  return { caller, ...present({ parent_id: query.parent_id }) };
}

export function createCategoryRequest(
  caller: Caller,
  body: Static<typeof CategoryCreate>,
): knowledgeV1.CreateCategoryRequest {
  return {
    caller,
    name: body.name,
    ...present({ description: body.description, parent_id: body.parent_id }),
    sort_order: body.sort_order ?? 0,
  };
}

/** Only sent fields change: sent_fields names them, and a sent null is a field named but unset. */
export function updateCategoryRequest(
  caller: Caller,
  categoryId: string,
  body: Static<typeof CategoryUpdate>,
): knowledgeV1.UpdateCategoryRequest {
  const { name, description, parent_id, sort_order } = body;
  return {
    caller,
    category_id: categoryId,
    sent_fields: Object.keys(body),
    ...present({ name, description, parent_id, sort_order }),
  };
}
