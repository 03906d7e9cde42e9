// Products → catalog.v1 messages (the gRPC layer's answers); prices and rating are already exact decimal strings.
import { present, type catalogV1, type ValidationIssue } from '@kb/platform';
import type { RankedProduct } from '../domain/search';
import { searchHitFields as hitFields } from '../domain/index-document';
import type { Product } from '../domain/types';

const iso = (d: Date | null | undefined): string | undefined => (d ? new Date(d).toISOString() : undefined);

/** The interface's product response shape as a catalog.v1.Product message. */
export function productMessage(p: Product): catalogV1.Product {
  return {
    ...hitFields(p),
    tenant_id: p.tenant_id,
    site_id: p.site_id,
    attributes_json: JSON.stringify(p.attributes ?? {}),
    properties_json: JSON.stringify(p.properties ?? {}),
    additional_images: p.additional_images ?? [],
    is_variant: Boolean(p.is_variant),
    is_parent: Boolean(p.is_parent),
    source: p.source,
    created_at: iso(p.created_at) as string,
    updated_at: iso(p.updated_at) as string,
    search_keywords: p.search_keywords ?? [],
    has_similarity_anchor: Boolean(p.has_similarity_anchor),
    ...present({
      translation_group_id: p.translation_group_id,
      parent_product_id: p.parent_product_id,
      sync_hash: p.sync_hash,
      last_synced_at: iso(p.last_synced_at),
    }),
  };
}

/** A hydrated search hit as a catalog.v1.ProductSearchHit message. */
export function productHitMessage({ doc: p, ranking }: RankedProduct): catalogV1.ProductSearchHit {
  return {
    ...hitFields(p),
    score: ranking.score,
    score_sources: ranking.score_sources,
    ...(ranking.explanation_json !== undefined ? { explanation_json: ranking.explanation_json } : {}),
  };
}

/** Validation issues as catalog.v1.Issue messages: loc elements as strings (indexes as digits). */
export function issueMessages(issues: ValidationIssue[]): catalogV1.Issue[] {
  return issues.map((i) => ({ loc: i.loc.map(String), msg: i.msg, type: i.type }));
}
