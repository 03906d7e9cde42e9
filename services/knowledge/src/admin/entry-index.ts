/**
 * The entries' search index, administered (the admin CLI's `index errors|retry --kind entries`
 * and `reindex --kind entries`): what the index refused, queuing it again, and a rebuild.
 */
import * as grpc from '@grpc/grpc-js';
import { inBatches, indexErrorLine, reindex, type ReindexResult } from '@kb/indexing';
import {
  CLIENT_OPTIONS,
  grpcTarget,
  similarityProto,
  systemCaller,
  typedClient,
  type CallerSigner,
  type Logger,
} from '@kb/platform';
import { mongoReindexRuns, type ReindexRunDoc } from '@kb/mongo';
import { entriesRepo } from '../data-access/entries-repo';
import type { KnowledgeModels } from '../data-access/models';
import {
  BACKGROUND_INDEX_DEADLINE_MS,
  CONTENT_CHARS_PER_CALL,
  indexEntries,
  INDEXER,
  type EntryIndexOutcome,
} from '../domain/indexer';
import type { Entry } from '../domain/types';

/** A document the search index refused, as `indexErrorLine` prints it. */
export type IndexErrorRow = Parameters<typeof indexErrorLine>[1];

/** The entries the search index refused (of one tenant, or all), with the reason, attempts and refused version. */
export async function entryIndexErrors(
  models: KnowledgeModels,
  input: { tenantId?: string },
): Promise<IndexErrorRow[]> {
  const refused = await entriesRepo(models).indexErrors(input.tenantId);
  return refused.flatMap((e) => (e.index_error ? [{ ...e, queued: e.index_pending, index_error: e.index_error }] : []));
}

/** Queues the refused entries (of one tenant, or all; only `ids` when given) for the running indexer; returns how many. */
export function retryEntryIndexErrors(
  models: KnowledgeModels,
  input: { tenantId?: string; ids?: string[] },
): Promise<number> {
  return entriesRepo(models).retryIndexErrors(input.tenantId, input.ids ?? []);
}

export interface ReindexEntriesInput {
  /** host:port of the similarity service and what signs the calls to it (the system credential: a reindex spans tenants). */
  similarity: { address: string; sign: CallerSigner };
  /** Where a refusal met during the reindex is logged (error level). */
  logger: Logger;
  /** Continue the unfinished run from its last finished page (a new run when there is none). */
  resume?: boolean;
  /** Entries per page (default 200): a resumed run continues after the last page finished. */
  pageSize?: number;
  /** How a page that failed is written again (default: 3 more times, from 500 ms, doubling). */
  retry?: { attempts: number; delayMs: number };
  onBegun?(target: { index: string; alias: string; resumed?: { after: string; done: number } }): void;
  onPage?(done: number): void;
  onRetry?(attempt: number, delayMs: number, error: string): void;
}

/** Where `reindex --kind entries` keeps its progress (@kb/mongo mongoReindexRuns). */
export const ENTRY_REINDEX_RUNS = 'entry_reindex_runs';

/**
 * Rebuilds the entries index from MongoDB (the rules: @kb/indexing reindex). Searches keep using
 * the old index until the swap; with any entry not indexed (other than refused), there is no
 * swap: the result has no `finished`. Refused entries are recorded as index errors, as the
 * knowledge service's indexer does.
 */
export async function reindexEntries(models: KnowledgeModels, input: ReindexEntriesInput): Promise<ReindexResult> {
  const similarity = typedClient(
    'similarity',
    new (similarityProto().kb.similarity.v1.SimilarityService)(
      grpcTarget(input.similarity.address),
      grpc.credentials.createInsecure(),
      CLIENT_OPTIONS,
    ),
    // A page can carry CONTENT_CHARS_PER_CALL of content never embedded (a model switch).
    BACKGROUND_INDEX_DEADLINE_MS,
    input.similarity.sign,
  );
  const caller = systemCaller(INDEXER, '');
  const repo = entriesRepo(models);
  try {
    return await reindex({
      kind: 'entries',
      similarity,
      caller,
      pageSize: input.pageSize ?? 200,
      page: (after, limit) => repo.allAfter(after, limit),
      indexPage: async (entries, targetIndex) => {
        const outcome: EntryIndexOutcome = { indexed: new Map(), refused: new Set(), inDoubt: new Set() };
        const weight = { of: (e: Entry) => e.content.length, max: CONTENT_CHARS_PER_CALL };
        for (const batch of inBatches(entries, entries.length, weight))
          await indexEntries({ repo, logger: input.logger, similarity }, caller, batch, { targetIndex }, outcome);
        return { indexed: outcome.indexed.size, refused: outcome.refused.size };
      },
      requeueWrittenSince: (since) => repo.markChangedSince(since),
      runs: mongoReindexRuns(models.Entry.db.collection<ReindexRunDoc>(ENTRY_REINDEX_RUNS)),
      ...(input.resume ? { resume: true } : {}),
      ...(input.retry ? { retry: input.retry } : {}),
      ...(input.onBegun ? { onBegun: input.onBegun } : {}),
      ...(input.onPage ? { onPage: input.onPage } : {}),
      ...(input.onRetry ? { onRetry: input.onRetry } : {}),
    });
  } finally {
    similarity.close();
  }
}
