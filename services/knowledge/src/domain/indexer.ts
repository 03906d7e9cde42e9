import type { Caller, Logger, TypedClient, similarityV1 } from '@kb/common';
import type { EntriesRepo, EntryRecord } from '../data-access/entries-repo';

export type SimilarityClient = TypedClient<similarityV1.SimilarityServiceClient>;

/** The caller the knowledge service uses for its own calls to the similarity service. */
export function systemCaller(tenantId: string): Caller {
  return {
    tenant_id: tenantId,
    user_id: '',
    role: 'Admin',
    scopes: ['knowledge:read', 'knowledge:write', 'knowledge:admin'],
    workspace_ids: [],
    audit_source: 'system',
    client_id: '',
    request_id: '',
    token_id: 'system:knowledge-indexer',
  };
}

/** What the similarity service indexes for an entry (its embedding text is title, summary, content, similarity_text). */
export function entryDocument(e: EntryRecord): similarityV1.EntryDocument {
  return {
    id: e._id,
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

/**
 * Keeps the entries' search index in step with MongoDB. Each write tries to index at once
 * (bounded by `immediateDeadlineMs`, never failing the write); a loop catches up on every
 * entry whose indexed version is behind and on delete tombstones, so nothing is lost while
 * Elasticsearch or the similarity service is down.
 */
export function entryIndexer(deps: { repo: EntriesRepo; similarity: SimilarityClient; logger: Logger; intervalMs: number; immediateDeadlineMs: number; isUp: () => boolean }) {
  const { repo, similarity, logger } = deps;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let stopped = false;
  // After a failed attempt, writes stop waiting for the index until the loop gets through
  // again, so an index outage costs each write nothing instead of a deadline.
  let degraded = false;

  /** Indexes entries; returns the model per indexed id (empty when indexing failed). */
  async function index(entries: EntryRecord[], deadlineMs?: number): Promise<Map<string, string>> {
    const done = new Map<string, string>();
    let failed = false;
    for (const [tenantId, group] of byTenant(entries)) {
      try {
        const res = await similarity.call(
          'IndexEntries',
          { caller: systemCaller(tenantId), entries: group.map(entryDocument) },
          deadlineMs ? { deadlineMs } : undefined,
        );
        for (const r of res.results) {
          const entry = group.find((e) => e._id === r.id);
          if (!entry || (r.status !== 'indexed' && r.status !== 'stale')) continue;
          await repo.markIndexed(tenantId, entry._id, entry.version, res.model);
          done.set(entry._id, res.model);
        }
      } catch (err) {
        failed = true;
        logger.debug({ err: (err as Error).message, tenant_id: tenantId, count: group.length }, 'entry indexing deferred');
      }
    }
    degraded = failed;
    return done;
  }

  async function removeFromIndex(tombstones: { _id: string; tenant_id: string; version: number }[], deadlineMs?: number): Promise<void> {
    for (const [tenantId, group] of byTenant(tombstones)) {
      try {
        await similarity.call(
          'DeleteEntries',
          { caller: systemCaller(tenantId), documents: group.map((t) => ({ id: t._id, version: String(t.version) })) },
          deadlineMs ? { deadlineMs } : undefined,
        );
        for (const t of group) await repo.removeTombstone(tenantId, t._id, t.version);
        degraded = false;
      } catch (err) {
        degraded = true;
        logger.debug({ err: (err as Error).message, tenant_id: tenantId }, 'entry index delete deferred');
      }
    }
  }

  async function catchUp(): Promise<void> {
    if (running || !deps.isUp()) return;
    running = true;
    try {
      const tombstones = await repo.pendingTombstones(200);
      if (tombstones.length) await removeFromIndex(tombstones);
      const pending = await repo.pendingEntries(200);
      if (pending.length) await index(pending);
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'entry indexer pass failed');
    } finally {
      running = false;
    }
  }

  return {
    indexNow: async (entries: EntryRecord[]) => (degraded ? new Map<string, string>() : index(entries, deps.immediateDeadlineMs)),
    removeNow: async (tombstones: { _id: string; tenant_id: string; version: number }[]) => {
      if (!degraded) await removeFromIndex(tombstones, deps.immediateDeadlineMs);
    },
    catchUp,
    start() {
      const tick = () => {
        if (stopped) return;
        timer = setTimeout(() => void catchUp().finally(tick), deps.intervalMs);
        timer.unref();
      };
      tick();
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
export type EntryIndexer = ReturnType<typeof entryIndexer>;
