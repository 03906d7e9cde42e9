import type { Client } from '@elastic/elasticsearch';
import { AppError, type similarityV1 } from '@kb/common';
import type { EmbeddingCache } from '../embedding-cache';
import type { IndexManager } from '../indices/index-manager';
import { PRODUCT_VECTOR_FIELDS, productVectorPath, type ProductVectorField } from '../indices/mappings';
import { bulkWrite, DECIMAL, MAX_DOCUMENTS_PER_CALL, readExisting, resolveTarget, validDocuments, type IndexResult, type VectorSource } from '../indexing';
import { toStored } from '../vectors';


type Product = similarityV1.ProductDocument__Output;

/** The indexed form of a product; vectors are added per field. */
function productSource(p: Product): Record<string, unknown> {
  const opt = (v: string | null | undefined) => (v === undefined || v === null || v === '' ? undefined : v);
  const price = opt(p.price_current);
  return {
    tenant_id: p.tenant_id,
    site_id: p.site_id,
    language: p.language,
    availability: opt(p.availability),
    parent_product_id: opt(p.parent_product_id),
    external_id: opt(p.external_id),
    sku: opt(p.sku),
    gtin: opt(p.gtin),
    brand: opt(p.brand),
    category: opt(p.category),
    title: p.title,
    search_keywords: p.search_keywords,
    description: opt(p.description),
    short_description: opt(p.short_description),
    price_current: price !== undefined && DECIMAL.test(price) ? Number(price) : undefined,
    is_parent: p.is_parent,
    is_variant: p.is_variant,
    version: Number(p.version),
  };
}

function problem(p: Product): string | undefined {
  if (!p.site_id) return 'site_id is required';
  // A whitespace-only title is what MongoDB may hold (the edge asks for one character): indexed.
  if (!p.title) return 'title is required';
  if (p.price_current && !DECIMAL.test(p.price_current)) return 'price_current is not a decimal string';
  return undefined;
}

/**
 * Embeds (through the cache, or keeping the indexed vectors when reuse_vectors says the texts are
 * unchanged) and indexes products with their version as the external version.
 */
export async function indexProducts(
  deps: { es: Client; indices: IndexManager; cache: EmbeddingCache },
  req: similarityV1.IndexProductsRequest__Output,
  tenantId: string | undefined,
): Promise<IndexResult[]> {
  if (req.products.length > MAX_DOCUMENTS_PER_CALL) {
    throw AppError.invalid([{ loc: ['products'], msg: `At most ${MAX_DOCUMENTS_PER_CALL} products per call`, type: 'too_long' }]);
  }
  const target = await resolveTarget(deps, 'products', req.target_index);
  const alsoTo = target === deps.indices.alias('products') ? await deps.indices.pendingTargets('products') : [];
  const { valid, results } = validDocuments(req.products, tenantId, problem);
  // Keep the vectors already indexed when the texts are unchanged (sync_hash), same tenant only.
  const reuseIds = valid.filter((p) => p.reuse_vectors).map((p) => p.id);
  const existing = await readExisting(deps.es, target, deps.indices.alias('products'), reuseIds, PRODUCT_VECTOR_FIELDS.map(productVectorPath));

  type Need = { product: number; field: ProductVectorField; text: string };
  const needs: Need[] = [];
  const docs = valid.map((p, n) => {
    const doc = productSource(p);
    const sources: VectorSource[] = [];
    const old = existing.get(p.id);
    for (const field of PRODUCT_VECTOR_FIELDS) {
      const text = (field === 'description' ? p.text_description : field === 'properties' ? p.text_properties : p.text_attributes)?.trim();
      if (!text) continue;
      const kept = old && old['tenant_id'] === p.tenant_id ? (old[productVectorPath(field)] as number[] | undefined) : undefined;
      if (kept && kept.length === deps.indices.dims) {
        doc[productVectorPath(field)] = kept;
        sources.push('reused');
      } else {
        needs.push({ product: n, field, text });
      }
    }
    return { doc, sources };
  });
  const vectors = await deps.cache.vectors(needs.map((x) => x.text));
  needs.forEach((need, i) => {
    const { doc, sources } = docs[need.product]!;
    doc[productVectorPath(need.field)] = toStored(vectors[i]!.vector);
    sources.push(vectors[i]!.origin);
  });
  const written = await deps.indices.withAlias('products', () =>
    bulkWrite(
      deps.es,
      target,
      valid.map((p, n) => ({ id: p.id, version: Number(p.version), doc: docs[n]!.doc, sources: docs[n]!.sources })),
      alsoTo,
      { requireAlias: target === deps.indices.alias('products') },
    ),
  );
  for (const r of written) results.set(r.id, r);
  return req.products.map((p) => results.get(p.id)!);
}
