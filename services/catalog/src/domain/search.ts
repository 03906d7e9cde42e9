import { AppError, present, requireScope, type Caller, type catalogV1, type similarityV1 } from '@kb/platform';
import { SEARCH_DEFAULT_LIMIT, similarAnchorsOf, similarSearchOf, type SimilarAnchors } from '@kb/search';
import { requireSite, type CatalogDeps } from './products';
import type { Product } from './types';

function similarity(deps: CatalogDeps) {
  if (!deps.similarity) throw AppError.unavailable('The similarity service is not configured');
  return deps.similarity;
}

/** A stored product with how the search index ranked it. */
export interface RankedProduct {
  doc: Product;
  ranking: { score: number; score_sources: Record<string, number>; explanation_json?: string };
}

type IndexHit = { id: string; score: number; score_sources: Record<string, number>; explanation_json: string };

/** Hits from the index, hydrated from MongoDB (the source of truth); ids no longer there are dropped. */
async function hydrate(
  deps: CatalogDeps,
  tenantId: string,
  hits: IndexHit[],
  keep: (p: Product) => boolean,
  explain: boolean,
): Promise<{ hits: RankedProduct[]; dropped: number }> {
  return ranked(
    hits,
    new Map(
      (
        await deps.products.findByIds(
          tenantId,
          hits.map((h) => h.id),
        )
      ).map((d) => [d.id, d]),
    ),
    keep,
    explain,
  );
}

/** The hits whose product is stored and kept, in the index's order, with how the index ranked them. */
function ranked(
  hits: IndexHit[],
  docs: Map<string, Product>,
  keep: (p: Product) => boolean,
  explain: boolean,
): { hits: RankedProduct[]; dropped: number } {
  const out: RankedProduct[] = [];
  let dropped = 0;
  for (const h of hits) {
    const doc = docs.get(h.id);
    if (!doc || !keep(doc)) {
      dropped++;
      continue;
    }
    const explanation = explain && h.explanation_json ? { explanation_json: h.explanation_json } : {};
    out.push({ doc, ranking: { score: h.score, score_sources: h.score_sources ?? {}, ...explanation } });
  }
  return { hits: out, dropped };
}

const noAnchor = () => AppError.notFound('None of the anchor products was found');

/** Throws the 404 of an anchor list none of which is the tenant's product. */
async function requireSomeAnchor(
  deps: CatalogDeps,
  tenantId: string,
  req: catalogV1.SimilarProductsRequest__Output,
): Promise<void> {
  const found = new Set(await deps.products.existingIds(tenantId, [...new Set(req.anchor_product_ids)]));
  if (similarAnchorsOf(req, (id) => found.has(id)).anchors.length === 0) throw noAnchor();
}

/** The request's site (a slug becomes its id); when the site is unknown, unknown anchors are still the error answered first. */
async function siteOf(
  deps: CatalogDeps,
  tenantId: string,
  req: catalogV1.SimilarProductsRequest__Output,
  siteId: string,
) {
  const [anchors, site] = await Promise.allSettled([
    requireSomeAnchor(deps, tenantId, req),
    requireSite(deps, tenantId, siteId),
  ]);
  if (anchors.status === 'rejected') throw anchors.reason;
  if (site.status === 'rejected') throw site.reason;
  return site.value;
}

type SimilarCall = similarityV1.SimilarProductsResponse__Output;

/**
 * Products like the anchors (knowledge:read), hydrated from the catalog and filtered again.
 * The similarity service is asked with the anchors as sent; then one MongoDB read fetches the
 * anchors and the hits together. When an anchor is not the tenant's product (deleted, or another
 * tenant's), that answer is dropped and the service asked again without it, so an anchor the
 * catalog does not have never counts.
 */
export async function similarProducts(
  deps: CatalogDeps,
  caller: Caller,
  req: catalogV1.SimilarProductsRequest__Output,
): Promise<Omit<catalogV1.SimilarProductsResponse, 'hits'> & { hits: RankedProduct[] }> {
  requireScope(caller, 'knowledge:read');
  const tenantId = caller.tenant_id;
  // A slug must become the site's id before the similarity service can filter on it.
  const site = req.site_id !== undefined ? await siteOf(deps, tenantId, req, req.site_id) : undefined;
  // The request's and the tenant's defaults filled in as the gateway's read path fills them in.
  const searchFor = (anchors: SimilarAnchors) => similarSearchOf(req, anchors, site?.id);
  const ask = (search: ReturnType<typeof searchFor>): Promise<SimilarCall> =>
    similarity(deps).call('SimilarProducts', { caller, ...search });
  const asSent = similarAnchorsOf(req);
  const first = searchFor(asSent);
  const { vector_field: vectorField, exclude_parents: excludeParents } = first;
  let res: SimilarCall = await ask(first).catch(async (err: unknown) => {
    // An anchor list the catalog does not have is the answer, whatever the index said of it.
    await requireSomeAnchor(deps, tenantId, req);
    throw err;
  });
  // One read for the anchors and the hits: which anchors the catalog has, and the hits as stored.
  const stored = new Map(
    (await deps.products.findByIds(tenantId, [...new Set([...asSent.anchors, ...res.hits.map((h) => h.id)])])).map(
      (d) => [d.id, d],
    ),
  );
  // Unknown and other-tenant anchors are ignored; their weights go with them.
  const known = similarAnchorsOf(req, (id) => stored.has(id));
  if (known.anchors.length === 0) throw noAnchor();
  if (known.anchors.length < asSent.anchors.length) {
    res = await ask(searchFor(known));
    for (const d of await deps.products.findByIds(
      tenantId,
      res.hits.map((h) => h.id).filter((id) => !stored.has(id)),
    ))
      stored.set(d.id, d);
  }
  const { anchors } = known;
  const excluded = new Set([...anchors, ...req.exclude_product_ids]);
  const keep = (p: Product) =>
    !excluded.has(p.id) &&
    (!site || p.site_id === site.id) &&
    (req.language === undefined || p.language === req.language) &&
    !(excludeParents && p.is_parent);
  const { hits, dropped } = ranked(res.hits, stored, keep, req.explain);
  let explainJson = '';
  if (req.explain) {
    const filtered = res.filtered_json ? (JSON.parse(res.filtered_json) as Record<string, unknown>) : {};
    explainJson = JSON.stringify({
      anchors_ignored: req.anchor_product_ids.length - anchors.length,
      filtered_out: { ...filtered, ...(dropped ? { not_in_catalog: dropped } : {}) },
    });
  }
  return {
    anchor_product_ids: res.anchor_product_ids.length ? res.anchor_product_ids : anchors,
    vector_field: res.vector_field || vectorField,
    hits,
    explain_json: explainJson,
  };
}

/** Products matching a text query (knowledge:read), hydrated from the catalog. */
export async function searchProducts(
  deps: CatalogDeps,
  caller: Caller,
  req: catalogV1.SearchProductsRequest__Output,
): Promise<{ hits: RankedProduct[] }> {
  requireScope(caller, 'knowledge:read');
  const tenantId = caller.tenant_id;
  const site = req.site_id !== undefined ? await requireSite(deps, tenantId, req.site_id) : undefined;
  const excludeParents = req.settings?.variant_strategy === 'children_only';
  const res = await similarity(deps).call('SearchProducts', {
    caller,
    query: req.query,
    limit: req.limit || SEARCH_DEFAULT_LIMIT,
    ...(site ? { site_id: site.id } : {}),
    ...present({
      language: req.language,
      brand: req.brand,
      category: req.category,
      availability: req.availability,
      price_min: req.price_min,
      price_max: req.price_max,
    }),
    exclude_parents: excludeParents,
  });
  const keep = (p: Product) => (!site || p.site_id === site.id) && !(excludeParents && p.is_parent);
  return { hits: (await hydrate(deps, tenantId, res.hits, keep, false)).hits };
}
