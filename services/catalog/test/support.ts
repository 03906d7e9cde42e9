import type { Caller } from '@kb/platform';
import type { Product } from '../src/domain/types';

/** A caller of tenant t1 with the given scopes. */
export const callerWith = (...scopes: string[]): Caller => ({
  tenant_id: 't1',
  user_id: 'u1',
  role: 'Admin',
  scopes,
  workspace_ids: [],
  audit_source: 'test',
  client_id: '',
  request_id: '',
  token_id: '',
});

/** A stored product with every field at its default, overridden by `over`. */
export function storedProduct(over: Partial<Product> = {}): Product {
  const now = new Date('2026-01-01T00:00:00Z');
  return {
    id: '11111111-1111-4111-8111-111111111111',
    tenant_id: 't1',
    site_id: 's1',
    upsert_key: 'ext-1',
    external_id: 'ext-1',
    title: 'Chair',
    description: null,
    short_description: null,
    sku: null,
    gtin: null,
    brand: null,
    category: null,
    attributes: {},
    properties: {},
    price_current: null,
    price_msrp: null,
    price_special: null,
    price_on_request: false,
    currency: 'EUR',
    image_url: null,
    product_url: null,
    additional_images: [],
    availability: null,
    rating_average: null,
    rating_count: 0,
    language: 'de',
    parent_external_id: null,
    is_variant: false,
    is_parent: false,
    similarity_text: null,
    search_keywords: [],
    embedding_text_description: null,
    embedding_text_properties: null,
    embedding_text_attributes: null,
    sync_hash: null,
    source: 'api',
    parent_product_id: null,
    translation_group_id: null,
    has_similarity_anchor: false,
    version: 1,
    indexed_version: 1,
    needs_index: false,
    reuse_vectors: false,
    last_synced_at: now,
    created_at: now,
    updated_at: now,
    ...over,
  };
}
