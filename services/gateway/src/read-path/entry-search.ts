import { LRUCache } from 'lru-cache';
import { type Caller, type knowledgeV1, type similarityV1 } from '@kb/platform';
import { answerItemBytes, withinBudget } from '@kb/rules';
import {
  DEFAULT_PASSAGES,
  SEARCH_DEFAULT_LIMIT,
  elasticsearchErrorType,
  searchEntryIndex,
  withElasticsearch,
  type ElasticsearchClient,
  type RankedEntryHit,
} from '@kb/search';
import { cutPassages } from '@kb/text';
import type { Backends } from '../clients/backends';

/**
 * How long what the knowledge service said counts without asking again: a caller's visibility
 * filter, and that an entry's indexed version is the one MongoDB holds. A write through this
 * gateway forgets its tenant's at once; one made elsewhere (another replica, the admin CLI) is
 * seen at most this late (docs/architecture.md, "The read path").
 */
export const ENTRY_CONFIRMED_MS = 1_000;
const ENTRIES_KEPT = 20_000;
const CALLERS_KEPT = 10_000;

/** The entry search as the gateway sends it to the knowledge service (the site already resolved to its id). */
export type EntrySearchRequest = knowledgeV1.SearchEntriesRequest;

/** What the similarity service's DescribeModel said: the aliases searched and the model's languages. */
export type DescribeModel = (caller: Caller) => Promise<similarityV1.ModelInfo__Output>;

/** The entry as the index keeps it for hits (EntryDocument.hit_json) and its expiry. */
interface KeptHit {
  entry: knowledgeV1.Entry__Output;
  expires_at: string | null;
}

interface Found {
  ranked: RankedEntryHit;
  hit: KeptHit;
  content: string;
}

/** A caller's key for its visibility filter: everything the filter is made of. */
const callerKey = (c: Caller) =>
  [c.tenant_id, c.role, c.user_id ?? '', c.token_id ?? '', [...(c.workspace_ids ?? [])].sort().join(',')].join(
    '\u0000',
  );

/** What MongoDB said of an entry: its version, whether the index holds exactly that, whether the caller may read it. */
interface EntryState {
  version: number;
  indexed: boolean;
  readable: boolean;
}

/**
 * Entry search answered in the gateway from the index (docs/architecture.md, "The read path"):
 * the similarity service's search (searchEntryIndex of @kb/search), then one read of the hits'
 * kept fields. MongoDB stays the truth: every hit's version is checked against the version
 * MongoDB holds (at most ENTRY_CONFIRMED_MS old), and a hit the index holds in another version,
 * or one still being indexed, sends the whole search to the knowledge service, which reads
 * MongoDB. So a visibility change is never answered from a stale index.
 */
export function entrySearch(deps: {
  es: ElasticsearchClient;
  backends: Backends;
  describe: DescribeModel;
  queryVector: (caller: Caller, query: string) => Promise<Float32Array>;
}) {
  const { es, backends } = deps;
  const filters = new LRUCache<string, { filter: similarityV1.EntryVisibilityFilter__Output; generation: number }>({
    max: CALLERS_KEPT,
    ttl: ENTRY_CONFIRMED_MS,
  });
  /** Per caller and entry: the version MongoDB held and whether that caller may read it (indexed ones only). */
  const confirmed = new LRUCache<string, EntryState & { generation: number }>({
    max: ENTRIES_KEPT,
    ttl: ENTRY_CONFIRMED_MS,
  });
  /** Per tenant, bumped by every write through this gateway: what was confirmed before counts no more. */
  const generations = new Map<string, number>();
  const generation = (tenant: string) => generations.get(tenant) ?? 0;

  /** Asks the knowledge service; keeps the filter and the states of the entries named. */
  async function access(caller: Caller, ids: string[]) {
    const gen = generation(caller.tenant_id);
    const res = await backends.knowledge.call('EntrySearchAccess', { caller, entry_ids: ids });
    const filter: similarityV1.EntryVisibilityFilter__Output = {
      visibilities: res.visibilities,
      owner_user_id: res.owner_user_id ?? '',
      workspace_scoped: res.workspace_scoped,
      workspace_ids: res.workspace_ids,
    };
    const who = callerKey(caller);
    filters.set(who, { filter, generation: gen });
    for (const e of res.entries)
      if (e.indexed)
        confirmed.set(`${who}\u0000${e.id}`, {
          version: e.version,
          indexed: true,
          readable: e.readable,
          generation: gen,
        });
    const states = new Map<string, EntryState>(
      res.entries.map((e) => [e.id, { version: e.version, indexed: e.indexed, readable: e.readable }]),
    );
    return { filter, states };
  }

  async function visibilityFilter(caller: Caller) {
    const kept = filters.get(callerKey(caller));
    if (kept && kept.generation === generation(caller.tenant_id)) return kept.filter;
    return (await access(caller, [])).filter;
  }

  /**
   * The hits MongoDB agrees with: those the caller may read as stored now (deleted entries left
   * out); undefined when one is held in another version or is still being indexed (the knowledge
   * service answers then).
   */
  async function current(caller: Caller, found: Found[]): Promise<Found[] | undefined> {
    const who = callerKey(caller);
    const gen = generation(caller.tenant_id);
    const known = (f: Found) => {
      const c = confirmed.get(`${who}\u0000${f.ranked.id}`);
      return c !== undefined && c.generation === gen && c.version === f.ranked.version ? c : undefined;
    };
    // Read once: a confirmation that expires while the knowledge service is asked about the
    // others still counts for this search (read again, its hit would be taken for deleted).
    const confirmedNow = new Map(found.map((f) => [f.ranked.id, known(f)]));
    const unknown = found.filter((f) => !confirmedNow.get(f.ranked.id));
    const { states } =
      unknown.length > 0
        ? await access(
            caller,
            unknown.map((f) => f.ranked.id),
          )
        : { states: new Map<string, EntryState>() };
    const kept: Found[] = [];
    for (const f of found) {
      const s = confirmedNow.get(f.ranked.id) ?? states.get(f.ranked.id);
      if (!s) continue; // deleted (the knowledge service does not know it)
      if (!s.indexed || s.version !== f.ranked.version) return undefined;
      if (s.readable) kept.push(f);
    }
    return kept;
  }

  /** The ranked hits' kept fields (and content), read at the version searched; undefined when one moved on or kept none. */
  async function read(index: string, ranked: RankedEntryHit[], withContent: boolean): Promise<Found[] | undefined> {
    const res = await withElasticsearch(() =>
      es.mget<{ hit?: KeptHit; content?: string }>({
        index,
        ids: ranked.map((h) => h.id),
        _source_includes: withContent ? ['hit', 'content'] : ['hit'],
      }),
    );
    const found: Found[] = [];
    for (const [i, doc] of res.docs.entries()) {
      const h = ranked[i]!;
      if (!('found' in doc) || !doc.found) continue; // deleted since the search
      const source = doc._source;
      // Written again since the search, or indexed before the index kept hits: the knowledge service answers.
      if (Number(doc._version) !== h.version || !source?.hit) return undefined;
      // The skill index is shown per reader (skills it may not read left out): the knowledge service answers.
      if (source.hit.entry.type === 'skill_index') return undefined;
      found.push({ ranked: h, hit: source.hit, content: source.content ?? '' });
    }
    return found;
  }

  /**
   * The search answered from the index; undefined when the index cannot answer it alone (no
   * entries alias named, no index yet, a hit not current): then ask the knowledge service.
   */
  async function search(
    caller: Caller,
    req: EntrySearchRequest,
  ): Promise<knowledgeV1.EntrySearchHit__Output[] | undefined> {
    const model = await deps.describe(caller);
    const index = model.entries_alias;
    if (!index) return undefined;
    const query = (req.query ?? '').trim();
    const limit = req.limit || SEARCH_DEFAULT_LIMIT;
    const passages = req.passages ?? DEFAULT_PASSAGES;
    const min = Number(req.min_relevance ?? 0);
    const withContent = req.include_content !== false;
    let ranked: RankedEntryHit[];
    try {
      ranked = await searchEntryIndex(es, index, {
        tenantId: caller.tenant_id,
        query,
        queryVector: await deps.queryVector(caller, query),
        limit,
        passages,
        language: req.language,
        modelLanguages: model.languages,
        filter: {
          visibility: await visibilityFilter(caller),
          types: req.types ?? [],
          category_id: req.category_id,
          language: req.language,
          site_id: req.site_id,
          tags: req.tags ?? [],
          updated_after: req.updated_after,
        },
      });
    } catch (err) {
      // No index yet (nothing indexed so far): the similarity service creates it on the gRPC path.
      if (elasticsearchErrorType(err) === 'index_not_found_exception') return undefined;
      throw err;
    }
    ranked = ranked.filter((h) => h.relevance >= min);
    if (ranked.length === 0) return [];
    const read_ = await read(index, ranked, withContent || passages > 0);
    const found = read_ && (await current(caller, read_));
    if (!found) return undefined;
    const now = Date.now();
    const hits: knowledgeV1.EntrySearchHit__Output[] = [];
    for (const f of found) {
      if (f.hit.expires_at && Date.parse(f.hit.expires_at) <= now) continue;
      const cut = passagesOf(f, query, passages);
      if (!cut) return undefined;
      hits.push({
        entry: { ...f.hit.entry, content: withContent ? f.content : '' },
        score: f.ranked.score,
        score_sources: f.ranked.score_sources,
        relevance: f.ranked.relevance,
        passages: cut,
      });
    }
    // The best hits that fit the answer's byte budget (at least the best one), as SearchEntries answers.
    return withinBudget(hits, answerItemBytes);
  }

  return {
    search,
    /** A write through this gateway: the tenant's filters and confirmed versions count no more. */
    forgetTenant(tenantId: string): void {
      generations.set(tenantId, generation(tenantId) + 1);
    },
  };
}

/**
 * The hit's passages cut from the content of the version searched (the index's offsets are into
 * exactly that content), query terms marked; undefined when an offset lies outside it.
 */
function passagesOf(f: Found, query: string, count: number): knowledgeV1.Passage__Output[] | undefined {
  if (count <= 0) return [];
  const content = f.content;
  if (f.ranked.passages.some((p) => p.end > content.length)) return undefined;
  return cutPassages(content, f.ranked.passages, query, f.hit.entry.language || null, count);
}
