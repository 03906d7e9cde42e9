import {
  DependencyWatch,
  requireScope,
  probeDeadlineMs,
  untraced,
  type Caller,
  type catalogV1,
  type knowledgeV1,
  type Logger,
} from '@kb/platform';
import { createElasticsearchClient, ownIndexPatterns, ownIndicesServing } from '@kb/search';
import type { Backends } from '../clients/backends';
import { anchorCache } from './anchor-cache';
import { readAheadStarts } from './anchor-read-ahead';
import { answerCache, SIMILAR_CACHE_HITS_DEFAULT, type SimilarReadAnswer } from './answer-cache';
import { entrySearch, type EntrySearchRequest } from './entry-search';
import { HIT_CACHE_CHARS_DEFAULT, hitSources } from './hit-sources';
import { IndexWatches } from './index-watch';
import { productSearch, type ProductSearchState } from './product-search';
import { queryVectors } from './query-vectors';
import { similarSearch, type SimilarSearchState } from './similar-search';
import { describeModel } from './similarity-model';
import { siteIds } from './site-ids';

// What the package exports of the read path (services/gateway/src/index.ts).

export interface ReadPath {
  /** The similar search answered from the index; undefined when the index cannot answer it alone (then ask the catalog). */
  similar(caller: Caller, req: catalogV1.SimilarProductsRequest): Promise<SimilarReadAnswer | undefined>;
  /** A product written or deleted through this gateway: its kept anchor vectors are dropped. */
  forgetProduct(id: string): void;
  /** The product search answered from the index; undefined when the index cannot answer it alone. */
  searchProducts(
    caller: Caller,
    req: catalogV1.SearchProductsRequest,
  ): Promise<catalogV1.ProductSearchHit__Output[] | undefined>;
  /** The entry search answered from the index; undefined when the index cannot answer it alone (then ask the knowledge service). */
  searchEntries(caller: Caller, req: EntrySearchRequest): Promise<knowledgeV1.EntrySearchHit__Output[] | undefined>;
  /**
   * A write through this gateway (any but a search): what was confirmed for its tenant's entries,
   * and its kept similar-search answers, count no more.
   */
  forgetTenant(tenantId: string): void;
  /** Whether the gateway's own watch sees Elasticsearch up (/readyz reports it). */
  elasticsearchUp(): boolean;
  start(): Promise<void>;
  stop(): void;
}

/**
 * The read path (docs/architecture.md): similar, product and entry search answered in the gateway straight from
 * Elasticsearch with the search library the similarity service runs (@kb/search), with
 * the tenant filter inside the query and every field a hit shows kept in the index. Writes and
 * indexing keep the gRPC path; MongoDB stays the truth and the index is derived from it.
 *
 * This assembles the parts: the similar search (similar-search.ts: its anchor cache, the index
 * watch and the read-ahead that fills the cache), the product search (product-search.ts) and
 * the entry search (entry-search.ts), over one Elasticsearch client and one watch of it.
 */
export function readPath(options: {
  url: string;
  /** The install's index prefix: the watch follows the health of its products and entries indices. */
  indexPrefix: string;
  backends: Backends;
  logger: Logger;
  /**
   * Hits' `_source` fields kept by version (HitSources), up to this many characters of JSON
   * (default HIT_CACHE_CHARS_DEFAULT: at least as many products as ANCHORS_KEPT); while most hits
   * of a similar search are kept, Elasticsearch answers its kNN with ids, scores and versions only
   * (docs/performance.md). 0: none kept.
   */
  hitCacheChars?: number;
  /** Similar-search answers kept, in hits (default SIMILAR_CACHE_HITS_DEFAULT); 0: none. */
  similarCacheHits?: number;
}): ReadPath {
  const { backends, logger } = options;
  const es = createElasticsearchClient(options.url);
  const watches = new IndexWatches(es);
  const anchors = anchorCache(() => watches.watchedState());
  const hitCacheChars = options.hitCacheChars ?? HIT_CACHE_CHARS_DEFAULT;
  const answers = answerCache(options.similarCacheHits ?? SIMILAR_CACHE_HITS_DEFAULT);
  // Not traced: a probe every quarter second would be a trace every quarter second. The indices
  // this install searches, not the cluster: another install's red index is not this one's outage.
  const searched = ownIndexPatterns(options.indexPrefix, ['products', 'entries']);
  const watch = new DependencyWatch({
    name: 'Elasticsearch',
    logger,
    probe: (boundMs) => untraced(() => ownIndicesServing(es, searched, probeDeadlineMs(boundMs))),
  });
  const describe = describeModel(backends);
  const queryVector = queryVectors(backends);
  const state: SimilarSearchState & ProductSearchState = {
    es,
    esWatch: watch,
    describe,
    siteId: siteIds(backends),
    queryVector,
    watches,
    anchors,
    hitSources: hitCacheChars > 0 ? hitSources({ maxChars: hitCacheChars }) : undefined,
    answers,
    readAheads: readAheadStarts(),
    logger,
  };

  const entries = entrySearch({ es, backends, describe, queryVector });

  async function searchEntries(caller: Caller, req: EntrySearchRequest) {
    requireScope(caller, 'knowledge:read');
    watch.assertUp();
    return entries.search(caller, req);
  }

  /** A search answered: Elasticsearch answered it (the watch's timed-out probes were slow, not an outage). */
  const answering =
    <A extends unknown[], R>(search: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const answer = await search(...args);
      if (answer !== undefined) watch.answered(); // undefined: perhaps not asked (the gRPC path answers)
      return answer;
    };

  return {
    similar: answering((caller: Caller, req: catalogV1.SimilarProductsRequest) => similarSearch(state, caller, req)),
    forgetProduct: (id) => anchors.delete(id),
    elasticsearchUp: () => watch.isUp(),
    searchProducts: answering((caller: Caller, req: catalogV1.SearchProductsRequest) =>
      productSearch(state, caller, req),
    ),
    searchEntries: answering(searchEntries),
    forgetTenant: (tenantId) => {
      entries.forgetTenant(tenantId);
      answers.forgetTenant(tenantId);
    },
    start: () => watch.start(),
    stop: () => {
      watch.stop();
      watches.stop();
      void es.close();
    },
  };
}
