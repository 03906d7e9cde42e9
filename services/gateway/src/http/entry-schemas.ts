import { Type, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ENTRY_SOURCES, ENTRY_TYPES, FIELD_LIMITS, METADATA_SCHEMAS, PAGE_LIMITS, VISIBILITIES } from '@kb/rules';
import { DEFAULT_PASSAGES, MAX_FILTER_TAGS, MAX_PASSAGES, SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT } from '@kb/search';
import { DateTime, Nullable, Uuid } from './schemas';

const PageLimit = Type.Optional(
  Type.Integer({
    minimum: 1,
    maximum: PAGE_LIMITS.max,
    default: PAGE_LIMITS.default,
    description: 'extension: page size',
  }),
);

const literals = (values: readonly string[], options: Record<string, unknown> = {}) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  );

export const Visibility = literals(VISIBILITIES, {
  description: 'personal only through the personal route; workspace is read as internal until workspaces_enabled',
});
/**
 * Visibility on the general create route: personal is left out (a 422 naming the personal
 * route, the same message the knowledge service gives).
 */
const WritableVisibility = literals(
  VISIBILITIES.filter((v) => v !== 'personal'),
  {
    description: 'workspace is read as internal until workspaces_enabled; personal only through the personal route',
    refusals: {
      personal: 'Personal entries can only be created through POST /api/knowledge/knowledge-entries/personal',
    },
  },
);
export const EntryType = literals(ENTRY_TYPES);
export const Source = literals(ENTRY_SOURCES);

const Title = Type.String({ minLength: 1, maxLength: 500 });
const Content = Type.String({ minLength: 1, maxLength: FIELD_LIMITS.longText, description: 'Markdown' });
const Layer = Nullable(Type.String({ maxLength: 50 }));
const Language = Type.String({ minLength: 2, maxLength: 5 });
const Metadata = Type.Record(Type.String(), Type.Unknown(), {
  description: 'validated against the schema of the entry type',
});

const ofType = (type: string) => ({ properties: { type: { const: type } }, required: ['type'] });

/**
 * What JSON Schema can say of a create that depends on its type (OpenAPI only; the knowledge
 * service checks the same): visibility is required except for memory (default internal), and
 * metadata follows the type's schema (required where an empty one would fail, e.g. process steps).
 */
const typeRules: Record<string, unknown>[] = [
  { if: ofType('memory'), else: { required: ['visibility'] } },
  ...Object.entries(METADATA_SCHEMAS)
    .filter(([type]) => type !== 'knowledge' && type !== 'skill_index')
    .map(([type, schema]: [string, TSchema]) => ({
      if: ofType(type),
      then: {
        properties: { metadata: schema },
        ...(Value.Check(schema, Value.Default(schema, {})) ? {} : { required: ['metadata'] }),
      },
    })),
];
/** tags and search_keywords: bounded items (the interface leaves them open). */
const Strings = Type.Array(Type.String({ maxLength: FIELD_LIMITS.listItem }), { maxItems: FIELD_LIMITS.listItems });
// Bounds the interface leaves open (docs/api.md, "Limits").
const Summary = Type.String({ maxLength: FIELD_LIMITS.text });
const Reference = Type.String({ maxLength: FIELD_LIMITS.url });
const ProjectIds = Type.Array(Uuid, { maxItems: FIELD_LIMITS.projectIds });

/** Fields create and update take alike: where the entry came from, how search finds it, where it belongs. */
const sourceSearchAndPlacement = {
  source_reference: Type.Optional(Nullable(Reference)),
  similarity_text: Type.Optional(Nullable(Summary)),
  search_keywords: Type.Optional(Strings),
  project_ids: Type.Optional(Nullable(ProjectIds)),
  workspace_id: Type.Optional(Nullable(Uuid)),
};

export const Entry = Type.Object(
  {
    id: Uuid,
    tenant_id: Type.String(),
    title: Title,
    content: Content,
    category_id: Uuid,
    visibility: Visibility,
    type: EntryType,
    version: Type.Integer({ minimum: 1 }),
    language: Type.String(),
    translation_group_id: Uuid,
    source: Source,
    source_reference: Nullable(Type.String()),
    embedding_model: Nullable(Type.String()),
    created_at: DateTime,
    updated_at: DateTime,
    summary: Nullable(Type.String()),
    layer: Layer,
    tags: Strings,
    workspace_id: Nullable(Uuid),
    created_by_user_id: Nullable(Uuid),
    metadata: Metadata,
    search_keywords: Strings,
  },
  { $id: 'KnowledgeEntry' },
);

export const EntryCreate = Type.Object(
  {
    title: Title,
    content: Content,
    category_id: Uuid,
    visibility: Type.Optional(WritableVisibility),
    summary: Type.Optional(Nullable(Summary)),
    layer: Type.Optional(Layer),
    tags: Type.Optional(Strings),
    type: Type.Optional(EntryType),
    language: Type.Optional(Language),
    metadata: Type.Optional(Metadata),
    source: Type.Optional(Source),
    ...sourceSearchAndPlacement,
    translation_of: Type.Optional(
      Type.Unsafe<string>({
        ...Uuid,
        description: 'extension: the id of the entry this one translates (joins its translation group)',
      }),
    ),
  },
  { additionalProperties: false, $id: 'KnowledgeEntryCreate', allOf: typeRules },
);

export const PersonalEntryCreate = Type.Object(
  {
    title: Title,
    content: Content,
    category_id: Uuid,
    summary: Type.Optional(Nullable(Summary)),
    layer: Type.Optional(Layer),
    tags: Type.Optional(Strings),
    language: Type.Optional(Language),
    metadata: Type.Optional(Metadata),
    source: Type.Optional(Source),
    source_reference: Type.Optional(Nullable(Reference)),
  },
  { additionalProperties: false, $id: 'PersonalEntryCreate' },
);

export const EntryUpdate = Type.Object(
  {
    title: Type.Optional(Title),
    content: Type.Optional(Content),
    summary: Type.Optional(Nullable(Summary)),
    category_id: Type.Optional(Uuid),
    layer: Type.Optional(Layer),
    tags: Type.Optional(Strings),
    visibility: Type.Optional(
      literals(VISIBILITIES, {
        description:
          'personal only on a personal note, which stays personal: another change from or to personal is a 409',
      }),
    ),
    metadata: Type.Optional(Metadata),
    ...sourceSearchAndPlacement,
    type: Type.Optional(Type.Never({ description: 'the type is immutable; sending it is a 422' })),
  },
  { additionalProperties: false, $id: 'KnowledgeEntryUpdate' },
);

export const EntryListQuery = Type.Object({
  category_id: Type.Optional(Uuid),
  type: Type.Optional(EntryType),
  project_id: Type.Optional(Uuid),
  visibility: Type.Optional(Visibility),
  layer: Type.Optional(Type.String({ maxLength: 50 })),
  include_expired: Type.Optional(Type.Boolean({ default: false })),
  limit: PageLimit,
  cursor: Type.Optional(
    Type.String({ minLength: 1, maxLength: 500, description: 'extension: from the Link rel="next" header' }),
  ),
});

/** A page of an entry's versions or translations (extension, like the entry list's limit and cursor). */
export const EntryHistoryQuery = Type.Object({
  limit: PageLimit,
  cursor: Type.Optional(
    Type.String({ minLength: 1, maxLength: 500, description: 'extension: from the Link rel="next" header' }),
  ),
});

export const EntryVersion = Type.Object(
  {
    version: Type.Integer(),
    action: literals(['create', 'update']),
    changed_at: DateTime,
    changed_by_user_id: Nullable(Type.String()),
    audit_source: Type.String(),
    client_id: Nullable(Type.String()),
    entry: Entry,
  },
  { $id: 'KnowledgeEntryVersion' },
);

export const Translation = Type.Object(
  {
    entry: Entry,
    is_source: Type.Boolean(),
    outdated: Type.Boolean({ description: 'the source entry changed after this translation was last edited' }),
  },
  { $id: 'KnowledgeEntryTranslation' },
);

export const EntrySearch = Type.Object(
  {
    query: Type.String({
      minLength: 1,
      maxLength: 1000,
      pattern: '\\S',
      description: 'At least one character that is not white space',
    }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SEARCH_MAX_LIMIT, default: SEARCH_DEFAULT_LIMIT })),
    types: Type.Optional(Type.Array(EntryType, { maxItems: 7 })),
    category_id: Type.Optional(Uuid),
    language: Type.Optional(
      Type.String({
        minLength: 2,
        maxLength: 5,
        description:
          'Only entries in this language, the question read in it. Absent: every entry, the question read and ranked ' +
          'in the language it is written in when that can be told (English or German, three words or more), else in both',
      }),
    ),
    passages: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_PASSAGES,
        default: DEFAULT_PASSAGES,
        description: 'Best passages per hit (0: none)',
      }),
    ),
    min_relevance: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        default: 0,
        description: 'Leave out hits below this relevance; at 0.5 a question nothing answers gets an empty list',
      }),
    ),
    site_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Entries assigned to this site (uuid or slug)' }),
    ),
    tags: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: FIELD_LIMITS.listItem }), {
        maxItems: MAX_FILTER_TAGS,
        description: 'Entries with any of these tags',
      }),
    ),
    updated_after: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Entries changed after this time (ISO 8601; a date alone is its midnight, no zone is UTC)',
      }),
    ),
    include_content: Type.Optional(
      Type.Boolean({ default: true, description: 'false: hits carry their passages but not the whole content' }),
    ),
  },
  { additionalProperties: false, $id: 'KnowledgeEntrySearch' },
);

export const EntryPassage = Type.Object(
  {
    text: Type.String({ description: 'entry.content.slice(start, end), at most 1,200 characters' }),
    start: Type.Integer({ minimum: 0, description: 'Offset in the content, in UTF-16 code units' }),
    end: Type.Integer({ minimum: 0 }),
    score: Type.Number(),
    highlights: Type.Array(Type.Object({ start: Type.Integer({ minimum: 0 }), end: Type.Integer({ minimum: 0 }) }), {
      description: 'Query terms inside text, as offsets into text',
    }),
  },
  { $id: 'KnowledgeEntryPassage' },
);

export const EntrySearchHit = Type.Object(
  {
    entry: Type.Composite([Type.Omit(Entry, ['content']), Type.Object({ content: Type.Optional(Content) })], {
      description: 'The entry as stored now; content left out when include_content is false',
    }),
    score: Type.Number(),
    score_sources: Type.Record(Type.String(), Type.Number()),
    relevance: Type.Number({
      minimum: 0,
      maximum: 1,
      description: 'Calibrated: at 0.5 and above the entry most likely answers the question',
    }),
    passages: Type.Array(EntryPassage, { description: 'The best passages, best first' }),
  },
  { $id: 'KnowledgeEntrySearchHit' },
);

export const SiteKnowledgeAssign = Type.Object(
  { entry_ids: Type.Array(Uuid, { minItems: 1, maxItems: 500 }) },
  { additionalProperties: false, $id: 'SiteKnowledgeAssign' },
);

export const SiteKnowledgeResult = Type.Object(
  {
    site_id: Type.String(),
    assigned: Type.Integer({ minimum: 0 }),
    already_assigned: Type.Integer({ minimum: 0 }),
    not_found: Type.Array(Type.String()),
  },
  { $id: 'SiteKnowledgeResult' },
);
