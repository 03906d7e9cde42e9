import type { Types } from 'mongoose';
import type { similarityV1 } from '@kb/common';
import type { ProductDoc } from '../data-access/products-repo';

const dec = (d: Types.Decimal128 | null | undefined): string | null => (d == null ? null : d.toString());
const iso = (d: Date | null | undefined): string | null => (d ? new Date(d).toISOString() : null);

/** The interface's product response shape. */
export function productJson(p: ProductDoc) {
  return {
    id: p._id,
    tenant_id: p.tenant_id,
    site_id: p.site_id,
    external_id: p.external_id ?? null,
    title: p.title,
    description: p.description ?? null,
    short_description: p.short_description ?? null,
    sku: p.sku ?? null,
    gtin: p.gtin ?? null,
    brand: p.brand ?? null,
    category: p.category ?? null,
    attributes: p.attributes ?? {},
    properties: p.properties ?? {},
    price_current: dec(p.price_current),
    price_msrp: dec(p.price_msrp),
    price_special: dec(p.price_special),
    price_on_request: Boolean(p.price_on_request),
    currency: p.currency,
    image_url: p.image_url ?? null,
    product_url: p.product_url ?? null,
    additional_images: p.additional_images ?? [],
    availability: p.availability ?? null,
    rating_average: dec(p.rating_average),
    rating_count: p.rating_count ?? 0,
    language: p.language,
    translation_group_id: p.translation_group_id ?? null,
    parent_product_id: p.parent_product_id ?? null,
    is_variant: Boolean(p.is_variant),
    is_parent: Boolean(p.is_parent),
    source: p.source,
    sync_hash: p.sync_hash ?? null,
    last_synced_at: iso(p.last_synced_at),
    created_at: iso(p.created_at) as string,
    updated_at: iso(p.updated_at) as string,
    search_keywords: p.search_keywords ?? [],
    has_similarity_anchor: Boolean(p.has_similarity_anchor),
  };
}

/** The interface's "product search hit" fields (score and score_sources are added by the caller). */
export function productHitJson(p: ProductDoc) {
  const j = productJson(p);
  return {
    id: j.id,
    external_id: j.external_id,
    title: j.title,
    description: j.description,
    short_description: j.short_description,
    sku: j.sku,
    gtin: j.gtin,
    brand: j.brand,
    category: j.category,
    price_current: j.price_current,
    price_msrp: j.price_msrp,
    price_special: j.price_special,
    price_on_request: j.price_on_request,
    currency: j.currency,
    image_url: j.image_url,
    product_url: j.product_url,
    availability: j.availability,
    rating_average: j.rating_average,
    rating_count: j.rating_count,
    language: j.language,
  };
}

/** "key: value" lines; nested objects by dotted keys, arrays joined with commas. */
export function flatten(obj: Record<string, unknown> | null | undefined, prefix = ''): string[] {
  const lines: string[] = [];
  for (const [k, v] of Object.entries(obj ?? {})) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v)) lines.push(...flatten(v as Record<string, unknown>, key));
    else if (Array.isArray(v)) lines.push(`${key}: ${v.map((x) => (x && typeof x === 'object' ? JSON.stringify(x) : String(x))).join(', ')}`);
    else if (v !== null && v !== undefined && v !== '') lines.push(`${key}: ${String(v)}`);
  }
  return lines;
}

/** The embedding texts per field: explicit embedding_text_* when present, else generated from the title plus the field. */
export function embeddingTexts(p: Pick<ProductDoc, 'title' | 'description' | 'short_description' | 'properties' | 'attributes' | 'embedding_text_description' | 'embedding_text_properties' | 'embedding_text_attributes'>) {
  const join = (parts: (string | null | undefined)[]) => parts.filter((x): x is string => Boolean(x && x.trim())).join('\n');
  return {
    description: p.embedding_text_description?.trim() ? p.embedding_text_description : join([p.title, p.short_description, p.description]),
    properties: p.embedding_text_properties?.trim() ? p.embedding_text_properties : join([p.title, ...flatten(p.properties)]),
    attributes: p.embedding_text_attributes?.trim() ? p.embedding_text_attributes : join([p.title, ...flatten(p.attributes)]),
  };
}

/** What the similarity service indexes for a product version. */
export function indexDocument(p: ProductDoc, reuseVectors: boolean): similarityV1.ProductDocument {
  const t = embeddingTexts(p);
  const opt = <K extends string>(k: K, v: string | null | undefined) => (v != null ? { [k]: v } : {}) as Partial<Record<K, string>>;
  return {
    id: p._id,
    tenant_id: p.tenant_id,
    site_id: p.site_id,
    version: String(p.version),
    ...opt('external_id', p.external_id),
    title: p.title,
    ...opt('description', p.description),
    ...opt('short_description', p.short_description),
    ...opt('sku', p.sku),
    ...opt('gtin', p.gtin),
    ...opt('brand', p.brand),
    ...opt('category', p.category),
    search_keywords: p.search_keywords ?? [],
    language: p.language,
    ...opt('availability', p.availability),
    ...opt('price_current', p.price_current == null ? null : p.price_current.toString()),
    is_parent: Boolean(p.is_parent),
    is_variant: Boolean(p.is_variant),
    ...opt('parent_product_id', p.parent_product_id),
    text_description: t.description,
    text_properties: t.properties,
    text_attributes: t.attributes,
    reuse_vectors: reuseVectors,
  };
}
