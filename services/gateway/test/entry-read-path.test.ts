/**
 * The gateway's entry search read path with stand-ins for Elasticsearch and the knowledge service
 * (the real ones are in test/search/read-path.test.ts): what it does when the knowledge service's
 * confirmations expire in the middle of a search.
 */
import type { Caller } from '@kb/platform';
import { ENTRY_CONFIRMED_MS } from '../src/read-path/entry-confirmations';
import { entrySearch } from '../src/read-path/entry-search';

const caller = { tenant_id: 't1', user_id: 'u1', roles: ['Admin'] } as unknown as Caller;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An index holding these entries at version 1, each matching every query by its words. */
function stack(ids: string[], accessDelayMs: (asked: string[]) => number) {
  let hits = ids;
  const asked: string[][] = [];
  const es = {
    msearch: async () => ({
      responses: [
        {
          hits: {
            hits: hits.map((id, i) => ({ _id: id, _version: 1, _score: 10 - i, matched_queries: { text: 10 - i } })),
          },
        },
        { hits: { hits: [] } },
      ],
    }),
    mget: async ({ ids: wanted }: { ids: string[] }) => ({
      docs: wanted.map((id) => ({
        _id: id,
        found: true,
        _version: 1,
        _source: { hit: { entry: { id, version: 1, type: 'faq', title: id }, expires_at: null } },
      })),
    }),
  };
  const knowledge = {
    call: async (_method: string, req: { entry_ids: string[] }) => {
      asked.push(req.entry_ids);
      await sleep(accessDelayMs(req.entry_ids));
      return {
        visibilities: ['internal'],
        workspace_scoped: false,
        workspace_ids: [],
        entries: req.entry_ids.map((id) => ({ id, version: 1, indexed: true, readable: true })),
      };
    },
  };
  const search = entrySearch({
    es: es as never,
    backends: { knowledge } as never,
    describe: async () => ({ entries_alias: 'entries', languages: ['en'] }) as never,
    queryVector: async () => new Float32Array(4),
  });
  return {
    asked,
    setHits: (next: string[]) => (hits = next),
    ids: async () => (await search.search(caller, { query: 'parcel', passages: 0 } as never))?.map((h) => h.entry!.id),
  };
}

describe('entry search read path', () => {
  test('when confirmations expire while the knowledge service is asked about a new hit, then the confirmed hits stay', async () => {
    // Asking about "c" takes longer than what is left of the window in which "a" and "b" count as confirmed.
    const s = stack(['a', 'b'], (asked) => (asked.includes('c') ? ENTRY_CONFIRMED_MS * 0.9 : 0));
    expect(await s.ids()).toEqual(['a', 'b']);
    await sleep(ENTRY_CONFIRMED_MS * 0.3); // confirmed still (0.7 of the window left)
    s.setHits(['a', 'b', 'c']);
    expect(await s.ids()).toEqual(['a', 'b', 'c']);
    // "a" and "b" were still confirmed when the search began: only "c" was asked about.
    expect(s.asked.at(-1)).toEqual(['c']);
  }, 10_000);
});
