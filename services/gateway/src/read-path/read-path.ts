import { LRUCache } from 'lru-cache';
import { trace } from '@opentelemetry/api';
import {
  AppError,
  DependencyWatch,
  requireScope,
  WATCH_TIMEOUT_MS,
  untraced,
  type Caller,
  type catalogV1,
  type knowledgeV1,
  type Logger,
  type similarityV1,
} from '@kb/platform';
import {
  SEARCH_DEFAULT_LIMIT,
  similarAnchorsOf,
  similarSearchOf,
  type ProductVectorField,
  createElasticsearchClient,
  type ElasticsearchClient,
  elasticsearchErrorType,
  elasticsearchIsUp,
  hitSourceFields,
  hybridMatches,
  PRODUCT_SEARCH,
  productFilter,
  productVectorPath,
  rankHybrid,
  readAnchorVersions,
  readTenantAnchors,
  similarProducts,
  type AnchorCache,
  type SimilarAnswer,
  type StoredProduct,
} from '@kb/search';
import type { Backends } from '../clients/backends';
import { entrySearch, type EntrySearchRequest } from './entry-search';
import { HIT_CACHE_CHARS_DEFAULT, hitSources } from './hit-sources';
import { SIMILAR_CACHE_HITS_DEFAULT } from './answer-cache';

/**
 * Anchors whose vectors are kept (a 384-dim field as JSON numbers is ~3 KB: ~15 MB for one field
 * each, ~45 MB at most for three). The first similar search of a tenant in a field starts reading
 * the tenant's products' vectors of that field in the background, up to this many, so that later
 * anchors seen for the first time need no read before their search (only the version check that
 * runs beside it).
 */
const ANCHORS_KEPT = 5_000;
export const PRELOAD_AGAIN_MS = 60_000;

/**
 * Whether a similar search starts reading its tenant's vectors ahead (per index and field): the
 * first time, and again when one of its anchors is not kept once PRELOAD_AGAIN_MS have passed
 * since the last read started (a catalogue that grew since), never more often.
 */
export function readAheadDue(startedAt: number | undefined, anchorNotKept: boolean, now = Date.now()): boolean {
  return startedAt === undefined || (anchorNotKept && now - startedAt >= PRELOAD_AGAIN_MS);
}
const PRELOAD_PAGE = 25;
const PRELOAD_PAUSE_MS = 5;
/**
 * How long an anchor's kept version counts as confirmed: within it, a search uses the kept
 * vectors without asking the index. A product written through this gateway is forgotten at once;
 * one written elsewhere (another replica, the import CLI) counts for at most this long.
 */
export const ANCHOR_CONFIRMED_MS = 1_000;
/** How long a site's id (by uuid or slug) is kept: a deleted site's slug is refused at most this late. */
const SITE_TTL_MS = 5_000;
const SITES_KEPT = 10_000;
/** The `_source` fields a similar search's hit carries back: what the answer shows. */
const HIT_FIELDS = ['hit'] as const;
/** Query texts whose embedding is kept (384 floats each: ~1.5 MB at most); a model change restarts the gateway. */
const QUERY_VECTORS_KEPT = 1_000;

/** The fields a kept hit has: those of `source` that `fields` names and it holds. */
const pick = (source: Record<string, unknown>, fields: readonly string[]) =>
  Object.fromEntries(fields.filter((f) => f in source).map((f) => [f, source[f]]));
const hitFields = hitSourceFields(HIT_FIELDS);

/** What the index answered: hits with the product fields a search hit shows, in the catalog's message shape. */
export interface SimilarReadAnswer {
  anchor_product_ids: string[];
  vector_field: string;
  hits: catalogV1.ProductSearchHit__Output[];
  explain_json: string;
}

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

const noAnchor = () => AppError.notFound('None of the anchor products was found');

/** What the products index's write counters said (IndexWatch): the same value, no write since `changedAt`. */
export interface IndexState {
  value: string;
  /** When this value was first seen (or the watch started). */
  changedAt: number;
  /**
   * `value` and the count of refreshes searches see (external refreshes): while it stays the
   * same, a search reads what the last one read (no write, and none made searchable, since).
   */
  searchable: string;
}

/**
 * A read of anchors takes at most this long (the client's request timeout): an index state first
 * seen longer ago than this was already the state when a read answered now began.
 */
const READ_BOUND_MS = 10_000;

/**
 * The gateway's anchors: each kept with the version it was read at. Confirmed (used without
 * asking the index) within ANCHOR_CONFIRMED_MS of its last read or check, or for as long as the
 * products index has not been written since it was read: `indexState` says the index's write
 * counters are still what they were (IndexWatch, read every INDEX_WATCH_MS).
 */
export function anchorCache(
  indexState: () => Pick<IndexState, 'value' | 'changedAt'> | undefined = () => undefined,
): AnchorCache & { set(anchor: StoredProduct, state?: string | null): void } {
  const kept = new LRUCache<string, { anchor: StoredProduct; confirmedAt: number; state: string | undefined }>({
    max: ANCHORS_KEPT,
  });
  /** The index's state when a read answered now began, when that is known. */
  const settled = () => {
    const s = indexState();
    return s && Date.now() - s.changedAt > READ_BOUND_MS ? s.value : undefined;
  };
  const confirmed = (id: string) => {
    const k = kept.get(id);
    if (k === undefined) return false;
    if (Date.now() - k.confirmedAt < ANCHOR_CONFIRMED_MS) return true;
    return k.state !== undefined && indexState()?.value === k.state;
  };
  return {
    get: (id) => kept.get(id)?.anchor,
    /** `state`: the index's state known to hold when the read began (null: none known); default the settled one. */
    set: (anchor: StoredProduct, state?: string | null) =>
      void kept.set(anchor.id, {
        anchor,
        confirmedAt: Date.now(),
        state: state === undefined ? settled() : (state ?? undefined),
      }),
    delete: (id) => void kept.delete(id),
    confirmed,
    confirm: (id) => {
      const k = kept.get(id);
      if (!k) return;
      k.confirmedAt = Date.now();
      k.state = settled();
    },
  };
}

/** How often the products index's write counters are read while similar searches come in. */
export const INDEX_WATCH_MS = 500;
/** The watch stops after this long without a similar search. */
export const INDEX_WATCH_IDLE_MS = 30_000;

/**
 * The products index's write counters (primaries' index and delete totals, and the index behind
 * the alias), read every INDEX_WATCH_MS while similar searches come in: anchors read since they
 * last changed are still current, so a search needs no version check of its own. A failed read,
 * or one older than two intervals, says nothing (the searches check their anchors themselves).
 */
export function indexWatch(es: ElasticsearchClient, index: string) {
  let state: (IndexState & { seenAt: number }) | undefined;
  let lastUse = 0;
  let timer: NodeJS.Timeout | undefined;
  let first: Promise<void> | undefined;
  const poll = async () => {
    try {
      const res = await untraced(() => es.indices.stats({ index, metric: ['indexing', 'refresh'] }));
      const totals = res._all.primaries;
      const value = `${Object.keys(res.indices ?? {})
        .sort()
        .join(',')}:${totals?.indexing?.index_total ?? '?'}:${totals?.indexing?.delete_total ?? '?'}`;
      // Searches see external refreshes (scheduled, or asked for by a write); a realtime get's internal one shows them nothing.
      const searchable = `${value}:${totals?.refresh?.external_total ?? '?'}`;
      const now = Date.now();
      state =
        state?.value === value
          ? { ...state, searchable, seenAt: now }
          : { value, searchable, changedAt: now, seenAt: now };
    } catch {
      state = undefined;
    }
    if (Date.now() - lastUse > INDEX_WATCH_IDLE_MS && timer) {
      clearInterval(timer);
      timer = undefined;
      first = undefined;
      state = undefined;
    }
  };
  return {
    state: (): IndexState | undefined => (state && Date.now() - state.seenAt < 2 * INDEX_WATCH_MS ? state : undefined),
    /** A similar search came: the watch runs (started by the first); resolves once it has read the counters. */
    touch(): Promise<void> {
      lastUse = Date.now();
      if (!timer) {
        timer = setInterval(() => void poll(), INDEX_WATCH_MS);
        timer.unref();
        first = poll();
      }
      return first ?? Promise.resolve();
    },
    stop(): void {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}

/**
 * The read path (docs/architecture.md): similar, product and entry search answered in the gateway straight from
 * Elasticsearch with the search library the similarity service runs (@kb/search), with
 * the tenant filter inside the query and every field a hit shows kept in the index. Writes and
 * indexing keep the gRPC path; MongoDB stays the truth and the index is derived from it.
 */
export function readPath(options: {
  url: string;
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
  /** One watch per products index the searches read (an alias: a reindex moves it). */
  const watches = new Map<string, ReturnType<typeof indexWatch>>();
  const watchOf = (index: string) => {
    let w = watches.get(index);
    if (!w) watches.set(index, (w = indexWatch(es, index)));
    return w;
  };
  let watchedIndex: string | undefined;
  const anchors = anchorCache(() => (watchedIndex ? watches.get(watchedIndex)?.state() : undefined));
  const hitCacheChars = options.hitCacheChars ?? HIT_CACHE_CHARS_DEFAULT;
  const kept = hitCacheChars > 0 ? hitSources({ maxChars: hitCacheChars }) : undefined;
  const sites = new LRUCache<string, string>({ max: SITES_KEPT, ttl: SITE_TTL_MS });
  const similarCacheHits = options.similarCacheHits ?? SIMILAR_CACHE_HITS_DEFAULT;
  const answers =
    similarCacheHits > 0
      ? new LRUCache<string, { searchable: string; answer: SimilarReadAnswer }>({
          maxSize: similarCacheHits,
          sizeCalculation: (a) => a.answer.hits.length + 1,
        })
      : undefined;
  /** Per tenant, how many writes came through this gateway (part of a kept answer's key: a write retires its tenant's). */
  const writes = new Map<string, number>();
  const queryVectors = new LRUCache<string, Float32Array>({ max: QUERY_VECTORS_KEPT });
  let model: Promise<similarityV1.ModelInfo__Output> | undefined;
  // Not traced: a probe every quarter second would be a trace every quarter second.
  const watch = new DependencyWatch({
    name: 'Elasticsearch',
    logger,
    probe: () => untraced(() => elasticsearchIsUp(es, 2 * WATCH_TIMEOUT_MS)),
  });

  /** The aliases the similarity service searches and its model's languages (asked once; again after a failure). */
  const describe = (caller: Caller) =>
    (model ??= backends.similarity.call('DescribeModel', { caller }).catch((err: unknown) => {
      model = undefined;
      throw err;
    }));
  const productsAlias = async (caller: Caller) => (await describe(caller)).products_alias;

  /** Per tenant, index and field: when the background read of its products' vectors started (readAheadDue). */
  const preloads = new LRUCache<string, number>({ max: SITES_KEPT });
  const preload = (tenantId: string, index: string, field: string, ids: string[]) => {
    if (field === 'hybrid') return;
    const key = `${tenantId}\u0000${index}\u0000${field}`;
    if (
      !readAheadDue(
        preloads.get(key),
        ids.some((id) => !anchors.get(id)),
      )
    )
      return;
    preloads.set(key, Date.now());
    void untraced(async () => {
      // The index's state before the first page is read: while it holds, what the pages say holds.
      await watchOf(index).touch();
      const before = watchOf(index).state()?.value;
      return readTenantAnchors(
        es,
        index,
        tenantId,
        field as ProductVectorField,
        ANCHORS_KEPT,
        (a) => {
          const { index: concrete, source, ...rest } = a;
          const vector = productVectorPath(field as ProductVectorField);
          // The anchor as a search reads it: the tenant, and the vector only where the product has one.
          const anchor = { ...rest, source: pick(source, ['tenant_id', vector]) };
          if (!anchors.get(a.id)) anchors.set(anchor, before ?? null); // what a search read itself is as recent
          // The hit this product makes, kept at its version: the searches that find it need no `_source`.
          if (kept && a.version !== undefined) kept.set(concrete, a.id, a.version, pick(source, hitFields));
          return true;
        },
        // Small pages with a pause between: searches running meanwhile wait for a page at most.
        { size: PRELOAD_PAGE, between: () => new Promise((r) => setTimeout(r, PRELOAD_PAUSE_MS)) },
        kept ? hitFields : [],
      );
    }).catch((err: unknown) => {
      preloads.delete(key); // tried again by the next search
      logger.warn({ err: (err as Error).message, tenant_id: tenantId }, 'reading anchor vectors ahead failed');
    });
  };

  /** The site's id (the request may name it by slug); unknown: the catalog's 404. */
  const siteId = async (caller: Caller, site: string) => {
    const key = `${caller.tenant_id}\u0000${site}`;
    const kept = sites.get(key);
    if (kept) return kept;
    const found = await backends.catalog.call('GetSite', { caller, site_id: site });
    sites.set(key, found.id);
    return found.id;
  };

  async function similar(
    caller: Caller,
    req: catalogV1.SimilarProductsRequest,
  ): Promise<SimilarReadAnswer | undefined> {
    // The services' rule, kept here: a search needs knowledge:read (a write-only token gets 403).
    requireScope(caller, 'knowledge:read');
    watch.assertUp();
    const index = await productsAlias(caller);
    if (!index) return undefined; // a similarity service that does not name its aliases
    watchedIndex = index;
    const watched = watchOf(index);
    void watched.touch();
    // The same question asked again while the index is as it was searched: the same answer.
    const before = watched.state();
    const key =
      answers &&
      JSON.stringify([caller.tenant_id, writes.get(caller.tenant_id) ?? 0, index, { ...req, caller: undefined }]);
    const given = key === undefined ? undefined : answers?.get(key);
    if (given && before?.searchable === given.searchable) {
      trace.getActiveSpan()?.setAttribute('kb.similar.answer', 'kept');
      return given.answer;
    }
    const sent = similarAnchorsOf(req);
    const site = req.site_id !== undefined ? await siteOrNoAnchor(caller, index, req.site_id, sent.anchors) : undefined;
    // The catalog's road fills in the same defaults (similarSearchOf): the two answer alike.
    const searched: similarityV1.SimilarProductsRequest__Output = { caller: null, ...similarSearchOf(req, sent, site) };
    preload(caller.tenant_id, index, searched.vector_field, sent.anchors);
    let answer: SimilarAnswer;
    try {
      answer = await similarProducts(
        {
          es,
          productsIndex: async () => index,
          anchorCache: anchors,
          hitFields: HIT_FIELDS,
          ...(kept ? { hitSources: kept } : {}),
        },
        caller.tenant_id,
        searched,
      );
    } catch (err) {
      // No index yet (nothing indexed so far): the similarity service creates it on the gRPC path.
      if (elasticsearchErrorType(err) === 'index_not_found_exception') return undefined;
      throw err;
    }
    // A document indexed before the index kept what hits show: the catalog answers (until a reindex).
    if (answer.hits.some((h) => !h.source?.['hit'])) return undefined;
    const read: SimilarReadAnswer = {
      anchor_product_ids: answer.anchor_product_ids,
      vector_field: answer.vector_field,
      hits: answer.hits.map((h) => ({
        ...(h.source!['hit'] as catalogV1.ProductSearchHit__Output),
        score: h.score,
        score_sources: h.score_sources,
        ...(req.explain && h.explanation_json ? { explanation_json: h.explanation_json } : {}),
      })),
      explain_json: req.explain
        ? JSON.stringify({
            anchors_ignored: (req.anchor_product_ids?.length ?? 0) - answer.anchor_product_ids.length,
            filtered_out: answer.filtered_json ? (JSON.parse(answer.filtered_json) as unknown) : {},
          })
        : '',
    };
    // Kept only when the index was known as it was before and after the search: what it read is that state's.
    if (key && before && watched.state()?.searchable === before.searchable)
      answers!.set(key, { searchable: before.searchable, answer: read });
    return read;
  }

  /** The query's embedding by the similarity service's model (kept for repeated queries). */
  const queryVector = async (caller: Caller, query: string) => {
    const kept = queryVectors.get(query);
    if (kept) return kept;
    const res = await backends.similarity.call('Embed', { caller, texts: [query] });
    const vector = Float32Array.from(res.vectors[0]?.values ?? []);
    queryVectors.set(query, vector);
    return vector;
  };

  const entries = entrySearch({ es, backends, describe, queryVector });

  async function searchEntries(caller: Caller, req: EntrySearchRequest) {
    requireScope(caller, 'knowledge:read');
    watch.assertUp();
    return entries.search(caller, req);
  }

  async function searchProducts(
    caller: Caller,
    req: catalogV1.SearchProductsRequest,
  ): Promise<catalogV1.ProductSearchHit__Output[] | undefined> {
    requireScope(caller, 'knowledge:read');
    watch.assertUp();
    const index = await productsAlias(caller);
    const priceMin = req.price_min ? Number(req.price_min) : undefined;
    const priceMax = req.price_max ? Number(req.price_max) : undefined;
    // The catalog's path answers what the index cannot decide alone (a price range that is a 422).
    if (!index || (priceMin !== undefined && priceMax !== undefined && priceMin > priceMax)) return undefined;
    const site = req.site_id !== undefined ? await siteId(caller, req.site_id) : undefined;
    const query = req.query!.trim();
    const limit = req.limit || SEARCH_DEFAULT_LIMIT;
    const filter = productFilter(caller.tenant_id, {
      site_id: site,
      language: req.language,
      brand: req.brand,
      category: req.category,
      availability: req.availability,
      priceMin,
      priceMax,
      excludeParents: req.settings?.variant_strategy === 'children_only',
    });
    let matches;
    try {
      matches = await hybridMatches(es, {
        index,
        query,
        size: Math.max(limit * 3, 30),
        limit,
        filter,
        fields: PRODUCT_SEARCH,
        queryVector: await queryVector(caller, query),
        sourceFields: ['hit'],
      });
    } catch (err) {
      if (elasticsearchErrorType(err) === 'index_not_found_exception') return undefined;
      throw err;
    }
    const ranked = rankHybrid(matches, limit);
    const hits: catalogV1.ProductSearchHit__Output[] = [];
    for (const h of ranked) {
      const hit = matches.sources?.get(h.id)?.['hit'] as catalogV1.ProductSearchHit__Output | undefined;
      if (!hit) return undefined; // indexed before the index kept hits: the catalog answers
      hits.push({ ...hit, score: h.score, score_sources: h.score_sources });
    }
    return hits;
  }

  /** The site's id; when the site is unknown, unknown anchors are still the error answered first (as the catalog answers). */
  async function siteOrNoAnchor(caller: Caller, index: string, site: string, ids: string[]) {
    try {
      return await siteId(caller, site);
    } catch (err) {
      const found = await readAnchorVersions(es, index, ids);
      if (!found.some((a) => a.source['tenant_id'] === caller.tenant_id)) throw noAnchor();
      throw err;
    }
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
    similar: answering(similar),
    forgetProduct: (id) => anchors.delete(id),
    elasticsearchUp: () => watch.isUp(),
    searchProducts: answering(searchProducts),
    searchEntries: answering(searchEntries),
    forgetTenant: (tenantId) => {
      entries.forgetTenant(tenantId);
      writes.set(tenantId, (writes.get(tenantId) ?? 0) + 1);
    },
    start: () => watch.start(),
    stop: () => {
      watch.stop();
      for (const w of watches.values()) w.stop();
      void es.close();
    },
  };
}
