import {
  backgroundSpan,
  indexerLoop,
  indexSplittingRefusals,
  systemCaller,
  indexErrorMessage,
  outageLog,
  type Caller,
  type IndexerPass,
  type Logger,
  type SimilarityClient,
  type similarityV1,
} from '@kb/common';
import type { EntriesRepo } from '../data-access/entries-repo';
import type { Entry } from './types';

/** The token id the similarity service logs for the knowledge service's own calls. */
export const INDEXER = 'knowledge-indexer';

/** What the similarity service indexes for an entry (its embedding text is title, summary, content, similarity_text). */
export function entryDocument(e: Entry): similarityV1.EntryDocument {
  return {
    id: e.id,
    tenant_id: e.tenant_id,
    version: String(e.version),
    title: e.title,
    ...(e.summary !== null ? { summary: e.summary } : {}),
    content: e.content,
    ...(e.similarity_text !== null ? { similarity_text: e.similarity_text } : {}),
    search_keywords: e.search_keywords ?? [],
    tags: e.tags ?? [],
    type: e.type,
    visibility: e.visibility,
    ...(e.owner_key ? { owner_user_id: e.owner_key } : {}),
    ...(e.workspace_id ? { workspace_id: e.workspace_id } : {}),
    category_id: e.category_id,
    language: e.language,
    ...(e.layer !== null ? { layer: e.layer } : {}),
    updated_at: e.updated_at.toISOString(),
  };
}

function byTenant<T extends { tenant_id: string }>(items: T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(item.tenant_id, [...(groups.get(item.tenant_id) ?? []), item]);
  return groups;
}

type IndexDeps = { repo: EntriesRepo; logger: Logger };

/**
 * The search index refused this version as it is: retrying it unchanged cannot help, so it is
 * recorded on the entry (and out of the queue) until a new version or `admin index retry`, and
 * logged once, at error level.
 */
async function recordRefusal(deps: IndexDeps, entry: Entry, reason: string): Promise<void> {
  const message = indexErrorMessage(reason || 'refused without a reason');
  // False when a newer version was written meanwhile: that one is pending and gets its own try.
  if (!(await deps.repo.markRefused(entry.tenant_id, entry.id, entry.version, message, new Date()))) return;
  deps.logger.error(
    {
      tenant_id: entry.tenant_id,
      entry_id: entry.id,
      version: entry.version,
      error: message,
      index_errors: await deps.repo.countIndexErrors(),
    },
    'the search index refused an entry; not retried until it changes (npm run admin -- index errors)',
  );
}

/**
 * Records the similarity service's answer for a group of entries: indexed versions (or stale:
 * a newer one is indexed already) are marked, refused ones recorded. Returns the model per
 * indexed id ('' for an entry indexed without a vector: it has no text) and the refused ids.
 */
async function applyIndexResults(
  deps: IndexDeps,
  group: Entry[],
  res: similarityV1.IndexResponse__Output,
): Promise<{ indexed: Map<string, string>; refused: Set<string> }> {
  const indexed = new Map<string, string>();
  const refused = new Set<string>();
  for (const r of res.results) {
    const entry = group.find((e) => e.id === r.id);
    if (!entry) continue;
    if (r.status === 'failed') {
      refused.add(entry.id);
      await recordRefusal(deps, entry, r.error);
    } else if (r.status === 'indexed' || r.status === 'stale') {
      const model = r.embeddings ? res.model : '';
      await deps.repo.markIndexed(entry.tenant_id, entry.id, entry.version, model);
      indexed.set(entry.id, model);
    }
  }
  return { indexed, refused };
}

/** What indexing came to: the model per indexed id ('' when it has no text to embed) and the refused ids. */
export type EntryIndexOutcome = { indexed: Map<string, string>; refused: Set<string> };

/**
 * Indexes a group of entries, into `targetIndex` when given (a reindex) or the alias, with the
 * answer recorded into `outcome`; only an entry at fault is refused. Throws what is worth retrying.
 */
export async function indexEntries(
  deps: IndexDeps & { similarity: SimilarityClient },
  caller: Caller,
  group: Entry[],
  options: { deadlineMs?: number; targetIndex?: string },
  outcome: EntryIndexOutcome,
): Promise<void> {
  const call = (entries: Entry[]) =>
    deps.similarity.call(
      'IndexEntries',
      {
        caller,
        entries: entries.map(entryDocument),
        ...(options.targetIndex ? { target_index: options.targetIndex } : {}),
      },
      options.deadlineMs ? { deadlineMs: options.deadlineMs } : undefined,
    );
  await indexSplittingRefusals(group, call, {
    answered: async (entries, res) => {
      const applied = await applyIndexResults(deps, entries, res);
      for (const [id, model] of applied.indexed) outcome.indexed.set(id, model);
      for (const id of applied.refused) outcome.refused.add(id);
    },
    refused: async (entry, reason) => {
      outcome.refused.add(entry.id);
      await recordRefusal(deps, entry, reason);
    },
  });
}

/** How many entries (and delete tombstones) one pass of the background indexer takes. */
const BATCH = 200;

/**
 * Keeps the entries' search index in step with MongoDB. Each write tries to index at once
 * (bounded by `immediateDeadlineMs`, never failing the write); a loop catches up on every
 * entry whose indexed version is behind and on delete tombstones, so nothing is lost while
 * Elasticsearch or the similarity service is down.
 */
export function entryIndexer(deps: {
  repo: EntriesRepo;
  similarity: SimilarityClient;
  logger: Logger;
  intervalMs: number;
  immediateDeadlineMs: number;
  isUp: () => boolean;
}) {
  // one closure: writes and the loop share the outage log and the degraded flag
  const { repo, similarity, logger } = deps;
  let reported = false;
  // Transient failures (the similarity service, Elasticsearch or the embedder away) are retried
  // by the loop; logged when they start and end, not once per retry.
  const outage = outageLog(logger, 'entry indexing');
  // After a failed attempt, writes stop waiting for the index until the loop gets through
  // again, so an index outage costs each write nothing instead of a deadline.
  let degraded = false;

  /** Indexes entries, one call per tenant; returns the model per indexed id and whether a call failed. */
  async function index(entries: Entry[], deadlineMs?: number): Promise<{ done: Map<string, string>; failed: boolean }> {
    const outcome: EntryIndexOutcome = { indexed: new Map(), refused: new Set() };
    let failed = false;
    for (const [tenantId, group] of byTenant(entries)) {
      try {
        await indexEntries(
          { repo, logger, similarity },
          systemCaller(INDEXER, tenantId),
          group,
          deadlineMs ? { deadlineMs } : {},
          outcome,
        );
        outage.recovered();
      } catch (err) {
        failed = true;
        outage.failed(err, { tenant_id: tenantId, count: group.length });
      }
    }
    degraded = failed;
    return { done: outcome.indexed, failed };
  }

  /** Once per start: entries waiting for an operator (or a new version) since earlier runs. */
  async function reportIndexErrors(): Promise<void> {
    if (reported) return;
    const count = await repo.countIndexErrors();
    reported = true;
    if (count > 0)
      logger.warn(
        { index_errors: count },
        `${count} entries were refused by the search index (npm run admin -- index errors)`,
      );
  }

  /** Applies delete tombstones, one call per tenant; returns whether a call failed. */
  async function removeFromIndex(
    tombstones: { id: string; tenant_id: string; version: number }[],
    deadlineMs?: number,
  ): Promise<boolean> {
    let failed = false;
    for (const [tenantId, group] of byTenant(tombstones)) {
      try {
        await similarity.call(
          'DeleteEntries',
          {
            caller: systemCaller(INDEXER, tenantId),
            documents: group.map((t) => ({ id: t.id, version: String(t.version) })),
          },
          deadlineMs ? { deadlineMs } : undefined,
        );
        for (const t of group) await repo.removeTombstone(tenantId, t.id, t.version);
        degraded = false;
        outage.recovered();
      } catch (err) {
        failed = true;
        degraded = true;
        outage.failed(err, { tenant_id: tenantId, count: group.length });
      }
    }
    return failed;
  }

  async function pass(): Promise<IndexerPass> {
    if (!deps.isUp()) return {};
    await reportIndexErrors();
    // Reading the queues is not traced (it happens every interval); the work found is, as a
    // trace of its own (backgroundSpan).
    let failed = false;
    const tombstones = await repo.pendingTombstones(BATCH);
    if (tombstones.length) {
      failed = await backgroundSpan(
        'remove deleted entries from index',
        { 'kb.document.kind': 'entries', 'kb.indexer.documents': tombstones.length },
        () => removeFromIndex(tombstones),
      );
    }
    const pending = await repo.pendingEntries(BATCH);
    if (pending.length) {
      const indexed = await backgroundSpan(
        'index pending entries',
        { 'kb.document.kind': 'entries', 'kb.indexer.documents': pending.length },
        () => index(pending),
      );
      failed ||= indexed.failed;
    }
    return { failed, more: tombstones.length === BATCH || pending.length === BATCH };
  }

  const loop = indexerLoop({ name: 'entry indexer', intervalMs: deps.intervalMs, logger, pass });
  return {
    indexNow: async (entries: Entry[]) =>
      degraded ? new Map<string, string>() : (await index(entries, deps.immediateDeadlineMs)).done,
    removeNow: async (tombstones: { id: string; tenant_id: string; version: number }[]) => {
      if (!degraded) await removeFromIndex(tombstones, deps.immediateDeadlineMs);
    },
    start: loop.start,
    runOnce: loop.runOnce,
    stop: loop.stop,
  };
}
export type EntryIndexer = ReturnType<typeof entryIndexer>;
