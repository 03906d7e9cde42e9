/**
 * What a search uses when the request (and the tenant's settings) leave it open, and the bounds it
 * keeps. The gateway publishes these in the OpenAPI document and fills them in; the catalog, the
 * knowledge and the similarity service fall back to the same values for callers that do not pass
 * through the gateway, so they cannot drift apart.
 */

/** Hits answered when a similar search names no limit. */
export const SIMILAR_DEFAULT_LIMIT = 8;

/** The product vector a similar search compares when neither the request nor the tenant names one. */
export const DEFAULT_VECTOR_FIELD = 'description';

/** Hits a similar search may ask for. */
export const SIMILAR_MAX_LIMIT = 50;

/** Hits answered when a product or entry search names no limit. */
export const SEARCH_DEFAULT_LIMIT = 10;

/** The product texts that each get a vector (the index mapping has one dense_vector per field). */
export const PRODUCT_VECTOR_FIELDS = ['description', 'properties', 'attributes'] as const;
export type ProductVectorField = (typeof PRODUCT_VECTOR_FIELDS)[number];

/** What a similar search (and a tenant's default) may name: one field, or `hybrid` over all of them. */
export const VECTOR_FIELD_CHOICES = [...PRODUCT_VECTOR_FIELDS, 'hybrid'] as const;
export type VectorFieldChoice = (typeof VECTOR_FIELD_CHOICES)[number];

/** Hits a product or entry search may ask for through the API. */
export const SEARCH_MAX_LIMIT = 50;

/**
 * The range of a similar search's `min_score`: scores are on the cosine scale, [-1, 1], in every
 * mode (hybrid weights are normalised), so a bound outside it is a mistake, never a filter.
 */
export const SIMILAR_MIN_SCORE_RANGE = { minimum: -1, maximum: 1 } as const;

/** Passages per entry search hit when the request names none, and at most. */
export const DEFAULT_PASSAGES = 3;
export const MAX_PASSAGES = 5;

/** Tags an entry search's filter names at most. */
export const MAX_FILTER_TAGS = 20;
