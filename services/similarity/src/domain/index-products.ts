import { type similarityV1 } from '@kb/platform';
import { PRODUCT_VECTOR_FIELDS, type ProductVectorField, productVectorPath } from '@kb/search';
import { readExisting, type BulkDoc, type VectorSource } from '../data-access/documents';
import { writeCaller } from './callers';
import { DECIMAL, indexDocuments, optional } from './index-documents';
import type { EmbeddingDeps } from './deps';

type Product = similarityV1.ProductDocument__Output;

/** The indexed form of a product; vectors are added per field. */
function productSource(p: Product): Record<string, unknown> {
  const price = optional(p.price_current);
  return {
    tenant_id: p.tenant_id,
    site_id: p.site_id,
    language: p.language,
    availability: optional(p.availability),
    parent_product_id: optional(p.parent_product_id),
    external_id: optional(p.external_id),
    sku: optional(p.sku),
    gtin: optional(p.gtin),
    brand: optional(p.brand),
    category: optional(p.category),
    title: p.title,
    search_keywords: p.search_keywords,
    description: optional(p.description),
    short_description: optional(p.short_description),
    price_current: price !== undefined && DECIMAL.test(price) ? Number(price) : undefined,
    is_parent: p.is_parent,
    is_variant: p.is_variant,
    version: Number(p.version),
    hit: p.hit_json ? (JSON.parse(p.hit_json) as Record<string, unknown>) : undefined,
  };
}

function problem(p: Product): string | undefined {
  if (!p.site_id) return 'site_id is required';
  // A whitespace-only title is what MongoDB may hold (the edge asks for one character): indexed.
  if (!p.title) return 'title is required';
  if (p.price_current && !DECIMAL.test(p.price_current)) return 'price_current is not a decimal string';
  if (p.hit_json && !isJsonObject(p.hit_json)) return 'hit_json is not a JSON object';
  return undefined;
}

function isJsonObject(json: string): boolean {
  try {
    const v: unknown = JSON.parse(json);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

const fieldText = (p: Product, field: ProductVectorField) =>
  (field === 'description'
    ? p.text_description
    : field === 'properties'
      ? p.text_properties
      : p.text_attributes
  )?.trim();

/**
 * The products as bulk documents with their vectors: kept from the indexed copy when
 * reuse_vectors says the texts are unchanged (same tenant only), else through the cache.
 */
async function withVectors(deps: EmbeddingDeps, products: Product[], target: string): Promise<BulkDoc[]> {
  const reuseIds = products.filter((p) => p.reuse_vectors).map((p) => p.id);
  const existing = await readExisting(
    deps.es,
    target,
    deps.indices.alias('products'),
    reuseIds,
    PRODUCT_VECTOR_FIELDS.map(productVectorPath),
  );
  const needs: { product: number; field: ProductVectorField; text: string }[] = [];
  const docs = products.map((p, n) => {
    const doc = productSource(p);
    const sources: VectorSource[] = [];
    const old = existing.get(p.id);
    for (const field of PRODUCT_VECTOR_FIELDS) {
      const text = fieldText(p, field);
      if (!text) continue;
      const kept =
        old && old['tenant_id'] === p.tenant_id ? (old[productVectorPath(field)] as number[] | undefined) : undefined;
      if (kept && kept.length === deps.indices.dims) {
        doc[productVectorPath(field)] = kept;
        sources.push('reused');
      } else {
        needs.push({ product: n, field, text });
      }
    }
    return { id: p.id, version: Number(p.version), doc, sources };
  });
  const vectors = await deps.cache.vectors(needs.map((x) => x.text));
  needs.forEach((need, i) => {
    const { doc, sources } = docs[need.product]!;
    doc[productVectorPath(need.field)] = vectors[i]!.vector; // a Float32Array: bulkWrite writes it as exact float32 numbers
    sources.push(vectors[i]!.origin);
  });
  return docs;
}

/** IndexProducts: embeds and indexes products with their version as the external version. */
export function indexProducts(deps: EmbeddingDeps, req: similarityV1.IndexProductsRequest__Output) {
  const { tenantId } = writeCaller(req.caller);
  return indexDocuments(
    deps,
    {
      kind: 'products',
      field: 'products',
      docs: req.products,
      targetIndex: req.target_index,
      tenantId,
      searchableLater: req.searchable_later,
    },
    problem,
    (valid, target) => withVectors(deps, valid, target),
  );
}
