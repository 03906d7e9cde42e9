import type { knowledgeV1 } from '@kb/platform';
import { withElasticsearch, type ElasticsearchClient, type RankedEntryHit } from '@kb/search';
import { cutPassages } from '@kb/text';

/** The entry as the index keeps it for hits (EntryDocument.hit_json) and its expiry. */
interface KeptHit {
  entry: knowledgeV1.Entry__Output;
  expires_at: string | null;
}

/** A ranked hit with what the index keeps of it, read at the version searched. */
export interface Found {
  ranked: RankedEntryHit;
  hit: KeptHit;
  content: string;
}

/** The ranked hits' kept fields (and content), read at the version searched; undefined when one moved on or kept none. */
export async function readHits(
  es: ElasticsearchClient,
  index: string,
  ranked: RankedEntryHit[],
  withContent: boolean,
): Promise<Found[] | undefined> {
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
 * The hit's passages cut from the content of the version searched (the index's offsets are into
 * exactly that content), query terms marked; undefined when an offset lies outside it.
 */
export function passagesOf(f: Found, query: string, count: number): knowledgeV1.Passage__Output[] | undefined {
  if (count <= 0) return [];
  const content = f.content;
  if (f.ranked.passages.some((p) => p.end > content.length)) return undefined;
  return cutPassages(content, f.ranked.passages, query, f.hit.entry.language || null, count);
}
