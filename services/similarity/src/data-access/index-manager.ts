import type { Client, estypes } from '@elastic/elasticsearch';
import { AppError, type Logger } from '@kb/platform';
import {
  elasticsearchErrorType,
  isElasticsearchUnavailable,
  elasticsearchUnavailable,
  MissingIndexError,
  SplitAliasError,
  withElasticsearch,
  cacheIndexSettings,
  CACHE_REFRESH_INTERVAL,
  DEFAULT_INDEX_LAYOUT,
  embeddingCacheMappings,
  entryMappings,
  productMappings,
  replicaSettings,
  searchIndexSettings,
  type IndexLayout,
  SEARCH_REFRESH_INTERVAL,
  aliasName,
  INDEX_KINDS,
  isIndexOf,
  newIndexName,
  type IndexKind,
} from '@kb/search';

/**
 * The client's bound for a change of the cluster state (creating or deleting an index, a mapping,
 * a setting, an alias), instead of its 10 s for requests: Elasticsearch queues such changes on its
 * master and bounds each itself (`master_timeout` and the acknowledgement `timeout`, 30 s each by
 * default), and one given up on by the client may still happen. A busy node took over 10 s to
 * create an index in a CI run, which failed a start-up that would have succeeded.
 */
const CLUSTER_STATE_REQUEST = { requestTimeout: 60_000 } as const;

/**
 * Owns the index names of one prefix, model and dimension: creates each kind's alias on first
 * need (race-safe across processes) with the install's shards and replicas (`layout`), and runs
 * the reindex alias swap.
 */
export class IndexManager {
  private readonly ready = new Map<string, Promise<void>>();

  constructor(
    private readonly es: Client,
    private readonly logger: Logger,
    readonly prefix: string,
    readonly model: string,
    readonly dims: number,
    readonly layout: IndexLayout = DEFAULT_INDEX_LAYOUT,
  ) {}

  alias(kind: IndexKind): string {
    return aliasName(this.prefix, kind, this.model, this.dims);
  }

  /** The embedding cache index (a plain index: it never needs a reindex, the model is in its name). */
  get cacheIndex(): string {
    return aliasName(this.prefix, 'embeddings', this.model, this.dims);
  }

  /** Resolves once the kind's alias exists; concurrent callers in this process share one attempt. */
  ensure(kind: IndexKind): Promise<void> {
    return this.once(kind, () => this.createAliasIfMissing(kind));
  }

  /**
   * Runs a write against the kind's alias; if the alias turns out to be gone (deleted from
   * outside), creates it again and retries once; if it points at several indices (a creation
   * race left two), keeps the first created and retries once.
   */
  async withAlias<T>(kind: IndexKind, write: () => Promise<T>): Promise<T> {
    await this.ensure(kind);
    try {
      return await write();
    } catch (err) {
      if (!(err instanceof MissingIndexError) && !(err instanceof SplitAliasError)) throw err;
      this.ready.delete(kind);
      this.logger.warn(
        { alias: this.alias(kind) },
        err instanceof MissingIndexError ? 'alias missing; creating it again' : 'alias points at several indices',
      );
      await this.ensure(kind);
      try {
        return await write();
      } catch (again) {
        // Still split (another process's index landing late): a transient failure, tried again later.
        if (again instanceof SplitAliasError) throw elasticsearchUnavailable(again);
        throw again;
      }
    }
  }

  ensureCache(): Promise<void> {
    return this.once('cache', async () => {
      try {
        await this.createIndex(
          { index: this.cacheIndex, mappings: embeddingCacheMappings() },
          cacheIndexSettings(this.layout),
        );
      } catch (err) {
        if (elasticsearchErrorType(err) !== 'resource_already_exists_exception') throw err;
        await this.updateDynamicSettings([this.cacheIndex], CACHE_REFRESH_INTERVAL);
      }
    });
  }

  /** Creates every index now (at start-up); failures are left for the first request to retry. */
  async ensureAll(): Promise<void> {
    await Promise.all([...INDEX_KINDS.map((k) => this.ensure(k)), this.ensureCache()]);
  }

  private once(key: string, create: () => Promise<void>): Promise<void> {
    let pending = this.ready.get(key);
    if (!pending) {
      pending = withElasticsearch(create).catch((err: unknown) => {
        this.ready.delete(key); // try again on the next call
        throw err;
      });
      this.ready.set(key, pending);
    }
    return pending;
  }

  /** Creates an index with the search index settings of the layout (or `settings`). */
  private async createIndex(
    params: {
      index: string;
      mappings: estypes.MappingTypeMapping;
      aliases?: Record<string, estypes.IndicesAlias>;
    },
    settings: estypes.IndicesIndexSettings = searchIndexSettings(this.layout),
  ): Promise<void> {
    await this.es.indices.create({ ...params, settings }, CLUSTER_STATE_REQUEST);
  }

  /**
   * Brings indices made earlier (by an earlier release, or under other settings) to the current
   * refresh interval and replicas, dynamic settings changed in place; the shard count (static)
   * stays as created until a reindex.
   */
  private async updateDynamicSettings(indices: string[], interval: string): Promise<void> {
    if (indices.length === 0) return;
    try {
      await this.es.indices.putSettings(
        {
          index: indices,
          settings: { 'index.refresh_interval': interval, ...replicaSettings(this.layout.replicas) },
        },
        CLUSTER_STATE_REQUEST,
      );
    } catch (err) {
      if (isElasticsearchUnavailable(err)) throw err;
      this.logger.warn({ indices, err: (err as Error).message }, 'the index settings could not be updated in place');
    }
  }

  private mappingsFor(kind: IndexKind) {
    const vectors = this.layout.vectors ?? 'hnsw';
    return kind === 'products' ? productMappings(this.dims, vectors) : entryMappings(this.dims, vectors);
  }

  /** Concrete indices the alias points at now (empty when it does not exist). */
  async indicesOf(alias: string): Promise<string[]> {
    const exists = await this.es.indices.existsAlias({ name: alias });
    if (!exists) return [];
    return Object.keys(await this.es.indices.getAlias({ name: alias })).sort();
  }

  /**
   * Two processes may both find the alias missing and each create an index with it. Whoever then
   * sees more than one index behind the alias keeps the one Elasticsearch created first and
   * deletes the others (deleting an index drops it from the alias): the first created was
   * behind the alias from its creation, alone until the next one joined, and writes through an
   * alias with two indices fail, so the others never received a document. Ordered by creation,
   * not by name: a name is taken before the request, and the older name's index may land after
   * the newer one checked and kept itself. A process whose check never ran (its request timed
   * out after Elasticsearch had acted on it) leaves two behind: the next ensure, by any
   * process, settles them the same way.
   */
  private async createAliasIfMissing(kind: IndexKind): Promise<void> {
    const alias = this.alias(kind);
    const existing = await this.indicesOf(alias);
    if (existing.length > 0) {
      let kept = existing;
      if (existing.length > 1) {
        kept = [await this.keepFirstCreated(existing)];
        this.logger.warn(
          { alias, kept: kept[0], removed: existing.filter((i) => i !== kept[0]) },
          'several indices behind the alias; kept the first created',
        );
      }
      const indices = [...kept, ...(await this.pendingTargets(kind))];
      await this.updateMappings(kind, indices);
      await this.updateDynamicSettings(indices, SEARCH_REFRESH_INTERVAL);
      return;
    }
    const index = newIndexName(alias);
    await this.createIndex({ index, mappings: this.mappingsFor(kind), aliases: { [alias]: {} } });
    const behind = await this.indicesOf(alias);
    if (behind.length > 1) {
      const kept = await this.keepFirstCreated(behind);
      if (kept !== index) {
        this.logger.info({ alias, index, kept }, 'lost an index creation race; removed own index');
        return;
      }
    }
    this.logger.info({ alias, index }, 'created index');
  }

  /** Of several indices behind an alias, keeps the one created first and deletes the others; answers the one kept. */
  private async keepFirstCreated(behind: string[]): Promise<string> {
    const settings = await this.es.indices.getSettings({
      index: behind,
      name: 'index.creation_date',
      flat_settings: true,
      ignore_unavailable: true,
    });
    const created = (index: string) =>
      Number((settings[index]?.settings as Record<string, unknown> | undefined)?.['index.creation_date'] ?? Infinity);
    const [kept, ...others] = [...behind].sort((a, b) => created(a) - created(b) || a.localeCompare(b));
    try {
      await this.es.indices.delete({ index: others, ignore_unavailable: true }, CLUSTER_STATE_REQUEST);
    } catch (err) {
      // Another process settling the same alias deleted them first.
      if (elasticsearchErrorType(err) !== 'index_not_found_exception') throw err;
    }
    return kept as string;
  }

  /**
   * Brings indices made by an earlier release up to the current mappings where Elasticsearch
   * changes them in place (a new field, `ignore_above` on a keyword), so such a fix reaches a
   * running installation without a reindex. A change it refuses (another field type) is logged
   * once per start: it takes `npm run admin -- reindex <kind>`.
   */
  private async updateMappings(kind: IndexKind, indices: string[]): Promise<void> {
    const { dynamic, properties } = this.mappingsFor(kind);
    try {
      await this.es.indices.putMapping(
        {
          index: indices,
          ...(dynamic !== undefined ? { dynamic } : {}),
          ...(properties ? { properties } : {}),
        },
        CLUSTER_STATE_REQUEST,
      );
    } catch (err) {
      if (isElasticsearchUnavailable(err)) throw err;
      this.logger.error(
        { indices, err: (err as Error).message },
        `the ${kind} mapping cannot be updated in place; run \`npm run admin -- reindex ${kind}\``,
      );
    }
  }

  /** A new, empty index for `kind` under the current model, not yet behind the alias. */
  async beginReindex(kind: IndexKind): Promise<{ index: string; alias: string }> {
    const alias = this.alias(kind);
    const index = newIndexName(alias);
    await withElasticsearch(() => this.createIndex({ index, mappings: this.mappingsFor(kind) }));
    this.logger.info({ alias, index }, 'reindex started');
    return { index, alias };
  }

  /** Points the alias at `index` in one atomic _aliases call, then deletes the indices it left (and abandoned older reindex targets). */
  async finishReindex(kind: IndexKind, index: string): Promise<{ alias: string; index: string; removed: string[] }> {
    const alias = this.alias(kind);
    if (!isIndexOf(alias, index)) {
      throw AppError.invalid([{ loc: ['index'], msg: `Not an index of ${alias}`, type: 'value_error' }]);
    }
    return withElasticsearch(async () => {
      if (!(await this.es.indices.exists({ index }))) throw AppError.notFound(`Index ${index} not found`);
      const previous = (await this.indicesOf(alias)).filter((i) => i !== index);
      // Reindexes begun before this one and never finished are abandoned: they go too.
      const abandoned = (await this.pendingTargets(kind)).filter((i) => i < index);
      await this.es.indices.updateAliases(
        { actions: [...previous.map((i) => ({ remove: { index: i, alias } })), { add: { index, alias } }] },
        CLUSTER_STATE_REQUEST,
      );
      const removed = [...previous, ...abandoned];
      if (removed.length > 0)
        await this.es.indices.delete({ index: removed, ignore_unavailable: true }, CLUSTER_STATE_REQUEST);
      this.ready.set(kind, Promise.resolve());
      this.logger.info({ alias, index, removed }, 'reindex finished');
      return { alias, index, removed };
    });
  }

  /**
   * Reindex targets begun but not finished: indices of the alias's name pattern that the alias
   * does not point at. Live writes go to them too, so a change made while a reindex copies
   * MongoDB is not lost when the alias swaps (external versions keep the newest either way).
   */
  async pendingTargets(kind: IndexKind): Promise<string[]> {
    const alias = this.alias(kind);
    const res = await withElasticsearch(() =>
      this.es.indices.getAlias({ index: `${alias}-*`, allow_no_indices: true, expand_wildcards: 'open' }),
    );
    return Object.entries(res)
      .filter(([index, info]) => isIndexOf(alias, index) && !(alias in (info.aliases ?? {})))
      .map(([index]) => index)
      .sort();
  }

  /** A write target: the alias, or a reindex target of the same kind. */
  writeTarget(kind: IndexKind, target: string | null | undefined): string {
    const alias = this.alias(kind);
    if (target === undefined || target === null || target === '') return alias;
    if (!isIndexOf(alias, target)) {
      throw AppError.invalid([{ loc: ['target_index'], msg: `Not an index of ${alias}`, type: 'value_error' }]);
    }
    return target;
  }
}
