/**
 * What a similar-product search uses when the request (and the tenant's settings) leave it
 * open. The gateway publishes these in the OpenAPI document and fills them in; the catalog and
 * the similarity service fall back to the same values for callers that do not pass through
 * the gateway, so the three cannot drift apart.
 */

/** Hits answered when a similar search names no limit. */
export const SIMILAR_DEFAULT_LIMIT = 8;

/** The product vector a similar search compares when neither the request nor the tenant names one. */
export const DEFAULT_VECTOR_FIELD = 'description';
