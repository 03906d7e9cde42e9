import { Type } from '@sinclair/typebox';
import { BULK_LIMIT, INTERFACE_DECIMAL_PATTERN, DEFAULT_LANGUAGE, FIELD_LIMITS, exactNumber } from '@kb/rules';
import {
  SEARCH_DEFAULT_LIMIT,
  SEARCH_MAX_LIMIT,
  SIMILAR_DEFAULT_LIMIT,
  SIMILAR_MAX_LIMIT,
  SIMILAR_MIN_SCORE_RANGE,
  VECTOR_FIELD_CHOICES,
} from '@kb/search';
import { DateTime, Nullable, Uuid } from './schemas';

// Prices and ratings in responses: decimal strings in the interface's pattern.
const DecimalString = Nullable(Type.String({ pattern: INTERFACE_DECIMAL_PATTERN, examples: ['19.99'] }));
const Str = (opts: Record<string, unknown> = {}) => Nullable(Type.String(opts));
const Obj = Type.Record(Type.String(), Type.Unknown());

/** uuid or slug. */
export const SiteRef = Type.String({ minLength: 1, maxLength: 200, description: 'Site uuid or slug' });
export const SiteQuery = Type.Object({ site_id: SiteRef });

export const Site = Type.Object(
  {
    id: Uuid,
    tenant_id: Type.String(),
    slug: Type.String(),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    domain: Str(),
    language: Type.String(),
    site_type: Type.String({ maxLength: 50 }),
    platform: Str(),
    config: Obj,
    is_default: Type.Boolean(),
    created_at: DateTime,
  },
  { $id: 'Site' },
);

export const SiteCreate = Type.Object(
  {
    slug: Type.String({
      pattern: '^[a-z0-9][a-z0-9-]{0,62}$',
      description: 'Lowercase letters, digits and hyphens, not shaped like a uuid; unique per tenant (409); immutable',
      not: { format: 'uuid' },
    }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    domain: Type.Optional(Str({ maxLength: FIELD_LIMITS.url })),
    language: Type.Optional(Type.String({ minLength: 2, maxLength: 5, default: DEFAULT_LANGUAGE })),
    site_type: Type.Optional(Type.String({ minLength: 1, maxLength: 50, default: 'shop' })),
    platform: Type.Optional(Str({ maxLength: FIELD_LIMITS.name })),
    config: Type.Optional(Obj),
    is_default: Type.Optional(
      Type.Boolean({ description: "The tenant's first site is the default whatever this says" }),
    ),
  },
  { additionalProperties: false, $id: 'SiteCreate' },
);

export const SiteUpdate = Type.Object(
  {
    name: Type.Optional(Str({ minLength: 1, maxLength: 200 })),
    domain: Type.Optional(Str({ maxLength: FIELD_LIMITS.url })),
    site_type: Type.Optional(Str({ maxLength: 50 })),
    platform: Type.Optional(Str({ maxLength: FIELD_LIMITS.name })),
    config: Type.Optional(Nullable(Obj)),
    is_default: Type.Optional(Nullable(Type.Boolean())),
  },
  {
    additionalProperties: false,
    $id: 'SiteUpdate',
    description:
      'Fields not sent keep their value. null clears domain and platform; null for the other fields leaves them.',
  },
);

/** The product body, described once with the catalog's check of it (@kb/rules product-input.ts). */
export { ProductCreate } from '@kb/rules';

export const Product = Type.Object(
  {
    id: Uuid,
    tenant_id: Type.String(),
    site_id: Uuid,
    external_id: Str(),
    title: Type.String(),
    description: Str(),
    short_description: Str(),
    sku: Str(),
    gtin: Str(),
    brand: Str(),
    category: Str(),
    attributes: Obj,
    properties: Obj,
    price_current: DecimalString,
    price_msrp: DecimalString,
    price_special: DecimalString,
    price_on_request: Type.Boolean(),
    currency: Type.String(),
    image_url: Str(),
    product_url: Str(),
    additional_images: Type.Array(Type.String()),
    availability: Str(),
    rating_average: DecimalString,
    rating_count: Type.Integer(),
    language: Type.String(),
    translation_group_id: Str(),
    parent_product_id: Str(),
    is_variant: Type.Boolean(),
    is_parent: Type.Boolean(),
    source: Type.String(),
    sync_hash: Str(),
    last_synced_at: Nullable(DateTime),
    created_at: DateTime,
    updated_at: DateTime,
    search_keywords: Type.Array(Type.String()),
    has_similarity_anchor: Type.Boolean({ default: false }),
  },
  { $id: 'Product' },
);

/** The product's listing fields: what a search hit shows of it. */
export const PRODUCT_HIT_FIELDS = [
  'id',
  'external_id',
  'title',
  'description',
  'short_description',
  'sku',
  'gtin',
  'brand',
  'category',
  'price_current',
  'price_msrp',
  'price_special',
  'price_on_request',
  'currency',
  'image_url',
  'product_url',
  'availability',
  'rating_average',
  'rating_count',
  'language',
] as const satisfies readonly (keyof typeof Product.properties)[];

/** The interface's "Product search hit": the product's listing fields plus the score. */
export const ProductSearchHit = Type.Composite(
  [
    Type.Pick(Product, PRODUCT_HIT_FIELDS),
    Type.Object({
      score: Type.Number(),
      score_sources: Type.Record(Type.String(), Type.Number()),
      explanation: Type.Optional(Type.Unknown({ description: 'With explain: why this hit ranked' })),
    }),
  ],
  { $id: 'ProductSearchHit' },
);

/**
 * Search filters match stored values exactly, so none is longer than the longest value that
 * can be stored (brand and availability as in ProductCreate; category and language generously).
 */
export const FILTER_LIMITS = {
  site_id: 200,
  language: 35,
  brand: 200,
  category: FIELD_LIMITS.category,
  availability: 50,
} as const;

export const VectorField = Type.Union(
  VECTOR_FIELD_CHOICES.map((field) => Type.Literal(field)),
  { description: 'One field, or hybrid: a weighted sum over the fields (tenant hybrid_weights)' },
);

// An empty id reached Elasticsearch as an empty ids query ("Ids can't be empty"): a 500.
const ProductId = Type.String({ minLength: 1, maxLength: FIELD_LIMITS.name });

export const SimilarSearch = Type.Object(
  {
    anchor_product_ids: Type.Array(ProductId, { minItems: 1, maxItems: 10 }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SIMILAR_MAX_LIMIT, default: SIMILAR_DEFAULT_LIMIT })),
    vector_field: Type.Optional(Nullable(VectorField)),
    site_id: Type.Optional(Str({ maxLength: FILTER_LIMITS.site_id, description: 'uuid or slug' })),
    language: Type.Optional(Str({ maxLength: FILTER_LIMITS.language })),
    exclude_product_ids: Type.Optional(Type.Array(ProductId, { maxItems: FIELD_LIMITS.excludeIds })),
    anchor_weights: Type.Optional(
      Type.Array(Type.Number({ minimum: 0 }), {
        maxItems: 10,
        description: 'Extension: one non-negative weight per anchor, in the order of anchor_product_ids',
      }),
    ),
    min_score: Type.Optional(
      Nullable(
        Type.Number({
          ...SIMILAR_MIN_SCORE_RANGE,
          description: 'Extension: hits scoring below are left out (the cosine scale, -1 to 1)',
        }),
      ),
    ),
    collapse_variants: Type.Optional(
      Type.Boolean({ default: false, description: 'Extension: at most one hit per parent family' }),
    ),
    explain: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Extension: per hit why it ranked; per filter how many candidates it removed',
      }),
    ),
  },
  { additionalProperties: false, $id: 'SimilarSearch' },
);

export const SimilarSearchResponse = Type.Object(
  {
    anchor_product_ids: Type.Array(Type.String()),
    vector_field: Type.String(),
    products: Type.Array(ProductSearchHit),
    explain: Type.Optional(
      Type.Unknown({ description: 'With explain: anchors ignored and candidates removed per filter' }),
    ),
  },
  { $id: 'SimilarSearchResponse' },
);

export const ProductSearch = Type.Object(
  {
    query: Type.String({
      minLength: 1,
      maxLength: 1000,
      pattern: '\\S',
      description: 'At least one character that is not white space',
    }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SEARCH_MAX_LIMIT, default: SEARCH_DEFAULT_LIMIT })),
    site_id: Type.Optional(Str({ maxLength: FILTER_LIMITS.site_id, description: 'uuid or slug' })),
    language: Type.Optional(Str({ maxLength: FILTER_LIMITS.language })),
    brand: Type.Optional(Str({ maxLength: FILTER_LIMITS.brand })),
    category: Type.Optional(Str({ maxLength: FILTER_LIMITS.category })),
    availability: Type.Optional(Str({ maxLength: FILTER_LIMITS.availability })),
    price_min: Type.Optional(exactNumber()),
    price_max: Type.Optional(exactNumber()),
  },
  { additionalProperties: false, $id: 'ProductSearch' },
);

export const ProductSearchResponse = Type.Object(
  { products: Type.Array(ProductSearchHit) },
  { $id: 'ProductSearchResponse' },
);

export const ProductBulk = Type.Object(
  {
    // Named as the document's JsonValue: any JSON value, under the key rules every body is checked for.
    products: Type.Array(Type.Unknown({ $id: 'JsonValue' }), {
      minItems: 1,
      maxItems: BULK_LIMIT,
      description:
        'Up to 1,000 products (each a ProductCreate) for the site; each is validated on its own. The keys of ' +
        "every object in the body follow JsonObject's key rules, checked before anything else: a bad key " +
        'anywhere is a 422 for the whole request, at that key, and nothing is written.',
    }),
  },
  { additionalProperties: false, $id: 'ProductBulk' },
);

export const BulkItemResult = Type.Object({
  index: Type.Integer(),
  status: Type.Union([
    Type.Literal('created'),
    Type.Literal('updated'),
    Type.Literal('unchanged'),
    Type.Literal('error'),
  ]),
  id: Nullable(Uuid),
  embeddings: Nullable(Type.Union([Type.Literal('recomputed'), Type.Literal('skipped'), Type.Literal('pending')])),
  errors: Type.Optional(
    Type.Array(
      Type.Object({
        loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
        msg: Type.String(),
        type: Type.String(),
      }),
    ),
  ),
});
export const ProductBulkResponse = Type.Object(
  {
    results: Type.Array(BulkItemResult),
    summary: Type.Record(Type.String(), Type.Integer()),
  },
  { $id: 'ProductBulkResponse' },
);
