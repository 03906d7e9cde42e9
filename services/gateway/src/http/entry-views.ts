import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { AppError, type knowledgeV1 } from '@kb/platform';
import { API_PREFIX, type RouteResult } from './route';
import { Entry, EntrySearchHit, EntryVersion, SiteKnowledgeResult, Translation } from './entry-schemas';
import { Category } from './schemas';

// knowledge.v1 answers → the interface's JSON shapes, for the entry, category, search and
// site-knowledge routes.

const isNullable = (schema: TSchema): boolean =>
  Array.isArray(schema.anyOf) && schema.anyOf.some((s: TSchema) => s.type === 'null');

/**
 * A message as its response schema shows it: the schema's properties in the schema's order (the
 * order of the answer's bytes), a nullable field the message leaves unset (proto3 `optional`) as
 * an explicit null. `derived` holds the values that are not the message's own field as it is.
 */
function view<S extends TObject>(schema: S, message: object, derived: Record<string, unknown> = {}): Static<S> {
  const fields = message as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(schema.properties)) {
    const value = key in derived ? derived[key] : fields[key];
    out[key] = value === undefined && isNullable(property) ? null : value;
  }
  return out as Static<S>;
}

/** The message's entry, which the knowledge service always sets on success. */
function requiredEntry(e: knowledgeV1.Entry__Output | null | undefined): knowledgeV1.Entry__Output {
  if (!e) throw new AppError('internal', 'The knowledge service answered without an entry');
  return e;
}

export function entryJson(e: knowledgeV1.Entry__Output) {
  return view(Entry, e, { metadata: JSON.parse(e.metadata_json || '{}') as Record<string, unknown> });
}

export const entryVersionJson = (v: knowledgeV1.EntryVersion__Output) =>
  view(EntryVersion, v, { entry: entryJson(requiredEntry(v.entry)) });
export const translationJson = (t: knowledgeV1.Translation__Output) =>
  view(Translation, t, { entry: entryJson(requiredEntry(t.entry)) });
/** A search hit; without `includeContent` its entry leaves the content out (the passages carry what answers). */
export function entrySearchHitJson(h: knowledgeV1.EntrySearchHit__Output, includeContent = true) {
  const { content, ...rest } = entryJson(requiredEntry(h.entry));
  const entry = includeContent ? { ...rest, content } : rest;
  return view(EntrySearchHit, h, {
    entry,
    passages: (h.passages ?? []).map((p) => ({
      text: p.text,
      start: p.start,
      end: p.end,
      score: p.score,
      highlights: (p.highlights ?? []).map((s) => ({ start: s.start, end: s.end })),
    })),
  });
}
export const categoryJson = (c: knowledgeV1.Category__Output) => view(Category, c);
export const siteKnowledgeJson = (r: knowledgeV1.AssignEntriesToSiteResponse__Output) => view(SiteKnowledgeResult, r);

const etag = (version: number) => `"${version}"`;

/** An entry answer: the entry, with its version as the ETag (and Location when created). */
export function entryResult(e: knowledgeV1.Entry__Output, created = false): RouteResult {
  const headers: Record<string, string> = { ETag: etag(e.version) };
  if (created) headers.Location = `${API_PREFIX}/knowledge-entries/${e.id}`;
  return { status: created ? 201 : 200, body: entryJson(e), headers };
}

/**
 * The Link header to the next page: the request's own query with the cursor replaced, so the
 * filters and the page size carry over.
 */
export function nextPageLink(
  path: string,
  query: Record<string, string | string[] | undefined>,
  cursor: string,
): string {
  const next = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (k === 'cursor' || v === undefined) continue;
    for (const item of Array.isArray(v) ? v : [v]) next.append(k, item);
  }
  next.set('cursor', cursor);
  return `<${API_PREFIX}${path}?${next.toString()}>; rel="next"`;
}
