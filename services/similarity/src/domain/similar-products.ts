import type { similarityV1 } from '@kb/platform';
import { similarProducts as searchSimilar, type SimilarAnswer } from '@kb/search';
import { readCaller } from './callers';
import type { IndexDeps } from './deps';

/** SimilarProducts over gRPC: the shared search (the gateway's read path runs the same one), for a tenant's reader. */
export async function similarProducts(
  deps: IndexDeps,
  req: similarityV1.SimilarProductsRequest__Output,
): Promise<SimilarAnswer> {
  const { tenantId } = readCaller(req.caller);
  const productsIndex = async () => {
    await deps.indices.ensure('products');
    return deps.indices.alias('products');
  };
  return searchSimilar({ es: deps.es, productsIndex }, tenantId, req);
}
