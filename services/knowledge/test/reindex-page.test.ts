/**
 * The entries' side of the document indexer (src/domain/indexer.ts): what a reindex page keeps
 * on the entry. An entry written into the new index is marked indexed with the model that
 * embedded it, so its embedding_model follows a model change (products keep nothing: see the
 * catalog's reindex-page test).
 */
import pino from 'pino';
import type { SimilarityClient } from '@kb/platform';
import type { EntriesRepo } from '../src/data-access/entries-repo';
import { entryIndexing } from '../src/domain/indexer';
import { entry } from './support/fixtures';

test('when a reindex page is written, then one IndexEntries call into the target and each entry is marked with its model', async () => {
  const calls: unknown[] = [];
  const marked: unknown[] = [];
  const similarity = {
    call: async (method: string, req: { entries: { id: string }[]; target_index?: string }) => {
      calls.push([method, req.target_index, req.entries.map((e) => e.id)]);
      return {
        model: 'mini',
        results: req.entries.map((e) => ({ id: e.id, status: 'indexed', embeddings: 'computed' })),
      };
    },
  } as unknown as SimilarityClient;
  const repo = {
    markIndexed: async (...args: unknown[]) => void marked.push(args),
  } as unknown as EntriesRepo;
  const indexing = entryIndexing({ repo, similarity, logger: pino({ level: 'silent' }) });
  const outcome = await indexing.indexInto('kb-entries-2', [entry({ id: 'a' }), entry({ id: 'b', tenant_id: 't2' })]);
  expect(calls).toEqual([['IndexEntries', 'kb-entries-2', ['a', 'b']]]);
  expect(marked).toEqual([
    ['tenant-1', 'a', 3, 'mini'],
    ['t2', 'b', 3, 'mini'],
  ]);
  expect([...outcome.indexed]).toEqual([
    ['a', 'mini'],
    ['b', 'mini'],
  ]);
});
