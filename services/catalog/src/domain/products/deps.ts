import { type Logger, type SimilarityClient } from '@kb/platform';
import type { ProductsRepo } from '../../data-access/products-repo';
import type { SitesRepo } from '../../data-access/sites-repo';

export interface CatalogDeps {
  logger: Logger;
  sites: SitesRepo;
  products: ProductsRepo;
  /** Absent when the similarity service is not known (the background indexer catches up). */
  similarity?: SimilarityClient;
  /** The bound on indexing before a write answers (the products' document indexer: ./indexing). */
  indexOnWriteMs: number;
}

export { requireSite } from '../sites/deps';

/** Time left before the caller's deadline (epoch ms), keeping a margin to answer in. */
export const timeLeft = (deadline: number | undefined, marginMs: number) =>
  (deadline ?? Infinity) - Date.now() - marginMs;
