import type { IndexErrorRecord } from '@kb/indexing';
import type { ProductInput } from '@kb/rules';

/*
 * What the catalog service works on, as plain objects: the use cases and the gRPC mappers read
 * these; the repositories (data-access/) turn the stored documents into them and back. Prices
 * and rating are exact decimal strings in plain digits ("19.90", never a float or an exponent).
 */

/**
 * Every field a product write replaces, derived from the input schema: each input field present
 * (omitted ones take their defaults), plus the channel it came through.
 */
export type ProductFields = { [K in keyof ProductInput]-?: Exclude<ProductInput[K], undefined> } & { source: string };

export interface Product extends ProductFields {
  id: string;
  tenant_id: string;
  site_id: string;
  /** external_id, or the product id when there is none: the key a write finds the product by. */
  upsert_key: string;
  parent_product_id: string | null;
  translation_group_id: string | null;
  has_similarity_anchor: boolean;
  /** +1 per write; the search index's external version. */
  version: number;
  /** The highest version the similarity service confirmed as indexed. */
  indexed_version: number;
  /** True until the current version is indexed (what the background indexer looks for). */
  needs_index: boolean;
  /**
   * Set when the search index refused a version (needs_index is then false: it is not retried
   * until a new version or `admin index retry`); removed when a later version is indexed.
   */
  index_error?: IndexErrorRecord;
  /** Counts the changes that queued it for the index (with or without a new version); see @kb/indexing DocumentVersion. */
  index_seq?: number;
  /** Who is indexing it now, until when: a leased claim (@kb/mongo queue-claims). */
  index_claim?: { owner: string; until: Date };
  /** The write kept the sync_hash: the indexer may keep the vectors already indexed. */
  reuse_vectors: boolean;
  last_synced_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** What a write sets besides the key, the id and what the database keeps (version, created_at). */
export type ProductSet = Omit<
  Product,
  'id' | 'tenant_id' | 'site_id' | 'upsert_key' | 'version' | 'indexed_version' | 'created_at'
>;

/** A deleted product still to be removed from the search index, at the version after its last. */
export interface ProductDeletion {
  id: string; // the product's id
  tenant_id: string;
  version: number;
  deleted_at: Date;
}

export interface Site {
  id: string;
  tenant_id: string;
  slug: string;
  name: string;
  domain: string | null;
  language: string;
  site_type: string;
  platform: string | null;
  config: Record<string, unknown>;
  created_at: Date;
}

/** A site as answered: whether the tenant's default points at it, too. */
export type SiteView = Site & { is_default: boolean };

/** What an update may change on a site (never its id, tenant, slug or creation time). */
export type SiteChanges = Partial<Omit<Site, 'id' | 'tenant_id' | 'slug' | 'created_at'>>;
