import { AppError, type catalogV1, type ValidationIssue } from '@kb/common';

// catalog.v1 answers → the interface's JSON shapes. proto3 `optional` fields left out are the
// interface's nulls, rendered explicitly; key order is the interface's (the answers' bytes).

const orNull = <T>(v: T | undefined | null): T | null => v ?? null;
const object = (json: string): Record<string, unknown> => (json ? (JSON.parse(json) as Record<string, unknown>) : {});

/** The interface's product response shape. */
export function productJson(p: catalogV1.Product__Output) {
  return {
    id: p.id,
    tenant_id: p.tenant_id,
    site_id: p.site_id,
    external_id: orNull(p.external_id),
    title: p.title,
    description: orNull(p.description),
    short_description: orNull(p.short_description),
    sku: orNull(p.sku),
    gtin: orNull(p.gtin),
    brand: orNull(p.brand),
    category: orNull(p.category),
    attributes: object(p.attributes_json),
    properties: object(p.properties_json),
    price_current: orNull(p.price_current),
    price_msrp: orNull(p.price_msrp),
    price_special: orNull(p.price_special),
    price_on_request: p.price_on_request,
    currency: p.currency,
    image_url: orNull(p.image_url),
    product_url: orNull(p.product_url),
    additional_images: p.additional_images,
    availability: orNull(p.availability),
    rating_average: orNull(p.rating_average),
    rating_count: p.rating_count,
    language: p.language,
    translation_group_id: orNull(p.translation_group_id),
    parent_product_id: orNull(p.parent_product_id),
    is_variant: p.is_variant,
    is_parent: p.is_parent,
    source: p.source,
    sync_hash: orNull(p.sync_hash),
    last_synced_at: orNull(p.last_synced_at),
    created_at: p.created_at,
    updated_at: p.updated_at,
    search_keywords: p.search_keywords,
    has_similarity_anchor: p.has_similarity_anchor,
  };
}

/** The interface's product search hit, with `explanation` when the catalog sent one. */
export function productHitJson(h: catalogV1.ProductSearchHit__Output) {
  return {
    id: h.id,
    external_id: orNull(h.external_id),
    title: h.title,
    description: orNull(h.description),
    short_description: orNull(h.short_description),
    sku: orNull(h.sku),
    gtin: orNull(h.gtin),
    brand: orNull(h.brand),
    category: orNull(h.category),
    price_current: orNull(h.price_current),
    price_msrp: orNull(h.price_msrp),
    price_special: orNull(h.price_special),
    price_on_request: h.price_on_request,
    currency: h.currency,
    image_url: orNull(h.image_url),
    product_url: orNull(h.product_url),
    availability: orNull(h.availability),
    rating_average: orNull(h.rating_average),
    rating_count: h.rating_count,
    language: h.language,
    score: h.score,
    score_sources: { ...h.score_sources },
    ...(h.explanation_json !== undefined ? { explanation: JSON.parse(h.explanation_json) as unknown } : {}),
  };
}

/** The message's product, which the catalog always sets on success. */
export function requiredProduct(p: catalogV1.Product__Output | null | undefined): catalogV1.Product__Output {
  if (!p) throw new AppError('internal', 'The catalog answered without a product');
  return p;
}

/** Issues in FastAPI's shape: all-digit loc elements are array indexes, numbers again. */
export function issuesJson(issues: catalogV1.Issue__Output[]): ValidationIssue[] {
  return issues.map((i) => ({ loc: i.loc.map((x) => (/^\d+$/.test(x) ? Number(x) : x)), msg: i.msg, type: i.type }));
}
