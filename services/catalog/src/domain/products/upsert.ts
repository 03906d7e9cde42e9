import { AppError, requireScope, type Caller } from '@kb/platform';
import { assertProductInput, type DecodedProduct } from '../product-input';
import { requireSite, timeLeft, type CatalogDeps } from './deps';
import { productIndexer } from './indexing';
import { createdIn, embeddingsStatus, inSite, writeProduct } from './write';

/**
 * One product into a site (knowledge:write): validated, written under the site's claim, then
 * indexed within the write bound and the caller's deadline; answered as stored.
 */
export async function upsertProduct(
  deps: CatalogDeps,
  caller: Caller,
  siteIdOrSlug: string,
  body: DecodedProduct,
  deadline?: number,
) {
  requireScope(caller, 'knowledge:write');
  if (body.issues?.length) throw AppError.invalid(body.issues);
  const input = assertProductInput(body.value);
  const tenantId = caller.tenant_id;
  const site = await requireSite(deps, tenantId, siteIdOrSlug);
  const outcome = await inSite(
    deps,
    tenantId,
    site,
    () => writeProduct(deps, tenantId, site, input),
    (o) => createdIn([o]),
  );
  const budget = Math.min(deps.indexOnWriteMs, timeLeft(deadline, 300));
  const indexed =
    outcome.status === 'unchanged' || budget < 100
      ? false
      : (await productIndexer(deps).indexNow([outcome.doc, ...outcome.adopted], { deadlineMs: budget })).indexed.has(
          outcome.doc.id,
        );
  const doc = (await deps.products.findById(tenantId, outcome.doc.id)) ?? outcome.doc;
  return { doc, status: outcome.status, embeddings: embeddingsStatus(outcome, indexed) };
}
