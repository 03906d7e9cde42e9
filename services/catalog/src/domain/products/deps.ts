import { type Logger, type OutageLog, type SimilarityClient } from '@kb/common';
import type { ProductsRepo } from '../../data-access/products-repo';
import type { SitesRepo } from '../../data-access/sites-repo';

export interface CatalogDeps {
  logger: Logger;
  sites: SitesRepo;
  products: ProductsRepo;
  /** Absent when the similarity service is not known (the background indexer catches up). */
  similarity?: SimilarityClient;
  /** The bound on indexing before a write answers. */
  indexOnWriteMs: number;
  /**
   * After an indexing failure, writes stop waiting for indexing for a while (the background
   * indexer owns it then, and its first success lifts the pause): during an outage every write
   * answers at once instead of each spending its bound on a dependency known to be down.
   */
  inlineIndexing?: { pausedUntil: number };
  /** Logs an indexing outage when it starts and ends, not once per retry (else a warning per failure). */
  indexingOutage?: OutageLog;
}

const INLINE_PAUSE_MS = 10_000;

export const inlinePaused = (deps: CatalogDeps) => Date.now() < (deps.inlineIndexing?.pausedUntil ?? 0);

/** An inline indexing attempt failed: writes stop waiting for indexing for INLINE_PAUSE_MS. */
export function indexingFailed(deps: CatalogDeps, inline: boolean): void {
  if (inline && deps.inlineIndexing) deps.inlineIndexing.pausedUntil = Date.now() + INLINE_PAUSE_MS;
}

/** The background indexer got through: writes may wait for indexing again. */
export function indexingRecovered(deps: CatalogDeps): void {
  if (deps.inlineIndexing) deps.inlineIndexing.pausedUntil = 0;
}

export { requireSite } from '../sites/deps';

/** Time left before the caller's deadline (epoch ms), keeping a margin to answer in. */
export const timeLeft = (deadline: number | undefined, marginMs: number) =>
  (deadline ?? Infinity) - Date.now() - marginMs;
