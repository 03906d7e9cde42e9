import { present, type similarityV1 } from '@kb/platform';
import type { Product } from './types';

/** "key: value" lines; nested objects by dotted keys, arrays joined with commas. */
export function flatten(obj: Record<string, unknown> | null | undefined, prefix = ''): string[] {
  const lines: string[] = [];
  for (const [k, v] of Object.entries(obj ?? {})) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v)) lines.push(...flatten(v as Record<string, unknown>, key));
    else if (Array.isArray(v))
      lines.push(`${key}: ${v.map((x) => (x && typeof x === 'object' ? JSON.stringify(x) : String(x))).join(', ')}`);
    else if (v !== null && v !== undefined && v !== '') lines.push(`${key}: ${String(v)}`);
  }
  return lines;
}

/** The embedding texts per field: explicit embedding_text_* when present, else generated from the title plus the field. */
export function embeddingTexts(
  p: Pick<
    Product,
    | 'title'
    | 'description'
    | 'short_description'
    | 'properties'
    | 'attributes'
    | 'embedding_text_description'
    | 'embedding_text_properties'
    | 'embedding_text_attributes'
  >,
) {
  const join = (parts: (string | null | undefined)[]) =>
    parts.filter((x): x is string => Boolean(x && x.trim())).join('\n');
  return {
    description: p.embedding_text_description?.trim()
      ? p.embedding_text_description
      : join([p.title, p.short_description, p.description]),
    properties: p.embedding_text_properties?.trim()
      ? p.embedding_text_properties
      : join([p.title, ...flatten(p.properties)]),
    attributes: p.embedding_text_attributes?.trim()
      ? p.embedding_text_attributes
      : join([p.title, ...flatten(p.attributes)]),
  };
}

/** The texts that name and describe a product, in every message that carries one (the indexed document, the answer). */
export const identityTexts = (p: Product) => ({
  external_id: p.external_id,
  description: p.description,
  short_description: p.short_description,
  sku: p.sku,
  gtin: p.gtin,
  brand: p.brand,
  category: p.category,
});

/**
 * The product search hit fields of a stored product (score and score_sources are the search's):
 * in the catalog's answers, and kept in the index so that a search needs no MongoDB read.
 */
export function searchHitFields(p: Product) {
  return {
    id: p.id,
    title: p.title,
    price_on_request: Boolean(p.price_on_request),
    currency: p.currency,
    rating_count: p.rating_count ?? 0,
    language: p.language,
    ...present({
      ...identityTexts(p),
      price_current: p.price_current,
      price_msrp: p.price_msrp,
      price_special: p.price_special,
      image_url: p.image_url,
      product_url: p.product_url,
      availability: p.availability,
      rating_average: p.rating_average,
    }),
  };
}

/** What the similarity service indexes for a product version. */
export function indexDocument(p: Product, reuseVectors: boolean): similarityV1.ProductDocument {
  const t = embeddingTexts(p);
  return {
    id: p.id,
    tenant_id: p.tenant_id,
    site_id: p.site_id,
    version: String(p.version),
    title: p.title,
    search_keywords: p.search_keywords ?? [],
    language: p.language,
    is_parent: Boolean(p.is_parent),
    is_variant: Boolean(p.is_variant),
    ...present({
      ...identityTexts(p),
      availability: p.availability,
      price_current: p.price_current,
      parent_product_id: p.parent_product_id,
    }),
    text_description: t.description,
    text_properties: t.properties,
    text_attributes: t.attributes,
    reuse_vectors: reuseVectors,
    hit_json: JSON.stringify(searchHitFields(p)),
  };
}
