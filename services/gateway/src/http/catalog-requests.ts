import type { Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { AppError, present, type Caller, type ValidationIssue, type catalogV1, type knowledgeV1 } from '@kb/platform';
import { isValid, DEFAULT_LANGUAGE, numberToken, parseKeepingNumbers, plainDecimal, validationIssues } from '@kb/rules';
import { DEFAULT_VECTOR_FIELD, SEARCH_DEFAULT_LIMIT, SIMILAR_DEFAULT_LIMIT } from '@kb/search';
import {
  ProductCreate,
  type ProductBulk,
  type ProductSearch,
  type SimilarSearch,
  type SiteCreate,
  type SiteUpdate,
} from './catalog-schemas';
import { issuesJson } from './catalog-views';
import { withExactDecimals } from './exact-numbers';

// Validated requests → catalog.v1 requests, and the bulk answer put back together, for the site and product routes.

/** The body as sent, numbers digit for digit (prices), for the exact-decimal reading. */
export const rawJson = (text: string | undefined): unknown => (text ? parseKeepingNumbers(text) : undefined);

export function createSiteRequest(caller: Caller, body: Static<typeof SiteCreate>): catalogV1.CreateSiteRequest {
  return {
    caller,
    slug: body.slug,
    name: body.name,
    ...present({ domain: body.domain }),
    language: body.language ?? DEFAULT_LANGUAGE,
    site_type: body.site_type ?? 'shop',
    ...present({ platform: body.platform }),
    config_json: JSON.stringify(body.config ?? {}),
    is_default: body.is_default ?? false,
  };
}

/** Fields not sent keep their value; a sent null clears domain and platform and leaves the others. */
export function updateSiteRequest(
  caller: Caller,
  siteId: string,
  body: Static<typeof SiteUpdate>,
): catalogV1.UpdateSiteRequest {
  return {
    caller,
    site_id: siteId,
    ...present({ name: body.name, domain: body.domain }),
    clear_domain: body.domain === null,
    ...present({ site_type: body.site_type, platform: body.platform }),
    clear_platform: body.platform === null,
    ...(body.config != null ? { config_json: JSON.stringify(body.config) } : {}),
    ...present({ is_default: body.is_default }),
  };
}

/** A bulk body split into the items refused here (by index) and the ones sent on, exact decimals kept. */
export function bulkItems(
  body: Static<typeof ProductBulk>,
  rawBody: string | undefined,
): { refused: (ValidationIssue[] | undefined)[]; sent: { index: number; json: string }[] } {
  const raw = (rawJson(rawBody) as { products?: unknown[] } | undefined)?.products ?? [];
  const refused: (ValidationIssue[] | undefined)[] = [];
  const sent: { index: number; json: string }[] = [];
  body.products.forEach((item, index) => {
    const withDefaults = item && typeof item === 'object' ? Value.Default(ProductCreate, structuredClone(item)) : item;
    if (!isValid(ProductCreate, withDefaults)) {
      refused[index] = validationIssues(ProductCreate, withDefaults, ['body', 'products', index]);
      return;
    }
    sent.push({ index, json: JSON.stringify(withExactDecimals(withDefaults as Record<string, unknown>, raw[index])) });
  });
  return { refused, sent };
}

/** One result per item in the order sent (refused here or answered by the catalog), and the counts per status. */
export function bulkAnswer(
  count: number,
  items: ReturnType<typeof bulkItems>,
  answered: catalogV1.BulkUpsertProductsResponse__Output['results'],
) {
  const results = Array.from({ length: count }, (_, index) => {
    const issues = items.refused[index];
    if (issues) return { index, status: 'error', id: null, embeddings: null, errors: issues };
    const r = answered[items.sent.findIndex((s) => s.index === index)];
    if (!r) throw new AppError('internal', 'Missing bulk result');
    const errors = r.errors.length
      ? issuesJson(r.errors).map((e) => ({ ...e, loc: ['body', 'products', index, ...e.loc.slice(1)] }))
      : undefined;
    return {
      index,
      status: r.status,
      id: r.id || null,
      embeddings: r.embeddings || null,
      ...(errors ? { errors } : {}),
    };
  });
  const summary: Record<string, number> = { created: 0, updated: 0, unchanged: 0, error: 0 };
  for (const r of results) summary[r.status] = (summary[r.status] ?? 0) + 1;
  return { results, summary };
}

/** The tenant settings the catalog's searches need (the gateway resolved the tenant already). */
export function searchSettings(
  settings: knowledgeV1.TenantSettings__Output | null | undefined,
): catalogV1.SearchSettings {
  return {
    variant_strategy: settings?.variant_strategy || 'all',
    default_vector_field: settings?.default_vector_field || DEFAULT_VECTOR_FIELD,
    hybrid_weights: settings?.hybrid_weights ?? {},
  };
}

export function similarSearchRequest(
  caller: Caller,
  settings: knowledgeV1.TenantSettings__Output | null,
  body: Static<typeof SimilarSearch>,
): catalogV1.SimilarProductsRequest {
  return {
    caller,
    anchor_product_ids: body.anchor_product_ids,
    anchor_weights: body.anchor_weights ?? [],
    limit: body.limit ?? SIMILAR_DEFAULT_LIMIT,
    ...present({ vector_field: body.vector_field, site_id: body.site_id, language: body.language }),
    exclude_product_ids: body.exclude_product_ids ?? [],
    ...present({ min_score: body.min_score }),
    collapse_variants: body.collapse_variants ?? false,
    explain: body.explain ?? false,
    settings: searchSettings(settings),
  };
}

/** A price bound digit for digit from the raw body (the parsed body holds a binary float). */
function exactPrice(raw: unknown, field: 'price_min' | 'price_max'): string | undefined {
  const token = numberToken((raw as Record<string, unknown> | undefined)?.[field]);
  return token === undefined ? undefined : plainDecimal(token);
}

export function productSearchRequest(
  caller: Caller,
  settings: knowledgeV1.TenantSettings__Output | null,
  body: Static<typeof ProductSearch>,
  rawBody: string | undefined,
): catalogV1.SearchProductsRequest {
  const raw = body.price_min != null || body.price_max != null ? rawJson(rawBody) : undefined;
  return {
    caller,
    query: body.query,
    limit: body.limit ?? SEARCH_DEFAULT_LIMIT,
    ...present({
      site_id: body.site_id,
      language: body.language,
      brand: body.brand,
      category: body.category,
      availability: body.availability,
    }),
    ...present({
      price_min: body.price_min != null ? exactPrice(raw, 'price_min') : undefined,
      price_max: body.price_max != null ? exactPrice(raw, 'price_max') : undefined,
    }),
    settings: searchSettings(settings),
  };
}
