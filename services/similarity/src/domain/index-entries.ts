import { AppError, type similarityV1 } from '@kb/platform';
import { analyzeText, sentencesOf, splitPassages, statedAnswerTypes, type Passage } from '@kb/text';
import type { BulkDoc, RefusedDoc } from '../data-access/documents';
import { centralities, ENTRY_VECTOR_PATH, HAS_TOPIC_PATH, TOPIC_VECTOR_PATH } from '@kb/search';
import { toCompact, toStored } from '../data-access/vector-encoding';
import { writeCaller } from './callers';
import type { CachedVector } from './embedding-cache';
import { indexDocuments, optional } from './index-documents';
import type { EmbeddingDeps } from './deps';

type Entry = similarityV1.EntryDocument__Output;

/** The text an entry as a whole is embedded from: title, summary, content and similarity_text (cut by the model). */
function entryVectorText(e: Entry): string {
  return [e.title, e.summary, e.content, e.similarity_text]
    .map((s) => (s ?? '').trim())
    .filter((s) => s !== '')
    .join('\n\n');
}

/**
 * The text an entry's topic is embedded from: what its editor says it is about (title, summary,
 * similarity_text), without the content. A question asks about a topic before it asks for a fact:
 * beside the sentences, this ranks entries (measured, docs/search.md "The entry's topic").
 */
export function topicVectorText(e: {
  title?: string | null;
  summary?: string | null;
  similarity_text?: string | null;
}): string {
  return [e.title, e.summary, e.similarity_text]
    .map((s) => (s ?? '').trim())
    .filter((s) => s !== '')
    .join('\n');
}

/**
 * The text a passage is embedded from: the entry's title and the passage's headings as context,
 * then the passage. Unchanged text hits the (model, text) cache, so an update embeds only the
 * passages whose text (or context) changed.
 */
export function passageVectorText(title: string, p: Passage): string {
  return sentenceContextText(title, p, p.text);
}

/**
 * A text of a passage (a sentence, or the whole passage) after its entry's title and the passage's
 * headings. A sentence read so ranks entries beside the sentence alone (which chooses passages): a
 * paraphrase of a fact matches the fact better with what it is about in front of it.
 */
export function sentenceContextText(title: string, p: Passage, sentence: string): string {
  return [title.trim(), p.headings.join(' › '), sentence].filter((s) => s !== '').join('\n');
}

// Whitespace-only text is what MongoDB may hold (the edge asks for at least one character):
// such an entry is indexed without a vector rather than refused, so it is not lost to filters.
function problem(e: Entry): string | undefined {
  if (!e.visibility) return 'visibility is required';
  if (!e.title && !e.content) return 'title or content is required';
  return undefined;
}

/**
 * Sentences an entry has vectors for at most (two each: alone and in context): an entry at the
 * content bound has some 1,100-1,300 sentences of prose, up to 2,500 of the shortest. Each sentence
 * adds ~7 KB of JSON to the entry's document; 1,500 keeps the largest entry near 11 MB, inside
 * what Elasticsearch's indexing pressure admits for one document on the local node (MAX_BULK_BYTES).
 * Past this, the last passages are chosen by their own vectors only.
 */
export const MAX_SENTENCE_VECTORS = 1500;

/** Each passage's sentences (sentence vector texts), up to MAX_SENTENCE_VECTORS in all. */
export function sentencesOfPassages(passages: Passage[]): string[][] {
  let left = MAX_SENTENCE_VECTORS;
  return passages.map((p) => {
    const s = sentencesOf(p.text).slice(0, left);
    left -= s.length;
    return s;
  });
}

interface Prepared {
  entry: Entry;
  /** The model that embedded the entry's texts ('' when it has none). */
  model: string;
  passages: Passage[];
  vector: CachedVector | undefined;
  topicVector: CachedVector | undefined;
  passageVectors: CachedVector[];
  /** Per passage, its sentences' vectors. */
  sentenceVectors: CachedVector[][];
  /** Per passage, its sentences' vectors with the title and headings as context. */
  contextVectors: CachedVector[][];
}

/**
 * The entry as a search hit shows it (what the knowledge service sent, with the embedding model
 * MongoDB records once this version is indexed) and its expiry; undefined when the knowledge
 * service sent none (an older release): the read path then asks the knowledge service.
 */
function entryHit(e: Entry, model: string): Record<string, unknown> | undefined {
  if (!e.hit_json) return undefined;
  const { embedding_model: _before, ...entry } = JSON.parse(e.hit_json) as Record<string, unknown>;
  return { entry: model ? { ...entry, embedding_model: model } : entry, expires_at: e.expires_at ?? null };
}

/** The indexed form of an entry: its fields, its vector when it has text, and its passages. */
function entrySource({
  entry: e,
  model,
  passages,
  vector,
  topicVector,
  passageVectors,
  sentenceVectors,
  contextVectors,
}: Prepared): Record<string, unknown> {
  const language = e.language || null;
  const flat = centralities(sentenceVectors.flat().map((v) => v.vector));
  let next = 0;
  const central = sentenceVectors.map((vs) => vs.map(() => flat[next++]!));
  return {
    tenant_id: e.tenant_id,
    visibility: e.visibility,
    owner_user_id: optional(e.owner_user_id),
    workspace_id: optional(e.workspace_id),
    type: e.type,
    category_id: optional(e.category_id),
    language: optional(e.language),
    layer: optional(e.layer),
    tags: e.tags,
    site_ids: e.site_ids,
    title: e.title,
    summary: optional(e.summary),
    content: e.content,
    similarity_text: optional(e.similarity_text),
    search_keywords: e.search_keywords,
    stems: analyzeText([e.title, e.summary, e.similarity_text, ...e.search_keywords].join('\n'), language),
    updated_at: optional(e.updated_at),
    hit: entryHit(e, model),
    version: Number(e.version),
    ...(vector ? { [ENTRY_VECTOR_PATH]: toStored(vector.vector) } : {}),
    ...(topicVector ? { [TOPIC_VECTOR_PATH]: toCompact(topicVector.vector), [HAS_TOPIC_PATH]: true } : {}),
    passages: passages.map((p, i) => ({
      start: p.start,
      end: p.end,
      stems: analyzeText([...p.headings, p.text].join('\n'), language),
      vector: toCompact(passageVectors[i]!.vector),
      answers: statedAnswerTypes(p.text, language),
    })),
    sentences: passages.flatMap((p, i) =>
      sentenceVectors[i]!.map((v, j) => ({
        start: p.start,
        end: p.end,
        vector: toCompact(v.vector),
        context_vector: toCompact(contextVectors[i]![j]!.vector),
        centrality: central[i]![j]!,
      })),
    ),
  };
}

/** The embedder refused a text as it is (not: the embedder is away). */
const isRefusal = (err: unknown) => err instanceof AppError && err.kind === 'invalid';

/** The entries' documents: every entry and passage text embedded in one call (through the cache). */
async function prepareAll(deps: EmbeddingDeps, valid: Entry[]): Promise<BulkDoc[]> {
  const passagesOf = valid.map((e) => splitPassages(e.content));
  const texts = valid.map(entryVectorText);
  const topics = valid.map(topicVectorText);
  const sentenceLists = passagesOf.map(sentencesOfPassages);
  const passageTexts = valid.flatMap((e, i) => passagesOf[i]!.map((p) => passageVectorText(e.title, p)));
  const sentenceTexts = sentenceLists.flat(2);
  const contextTexts = valid.flatMap((e, i) =>
    sentenceLists[i]!.flatMap((ss, j) => ss.map((s) => sentenceContextText(e.title, passagesOf[i]![j]!, s))),
  );
  const embedded = await deps.cache.vectors([
    ...texts.filter((t) => t !== ''),
    ...topics.filter((t) => t !== ''),
    ...passageTexts,
    ...sentenceTexts,
    ...contextTexts,
  ]);
  let next = 0;
  const vectors = texts.map((t) => (t === '' ? undefined : embedded[next++]));
  const topicVectors = topics.map((t) => (t === '' ? undefined : embedded[next++]));
  const passageVectorsOf = passagesOf.map((ps) => ps.map(() => embedded[next++]!));
  const sentenceVectorsOf = sentenceLists.map((lists) => lists.map((ss) => ss.map(() => embedded[next++]!)));
  const contextVectorsOf = sentenceLists.map((lists) => lists.map((ss) => ss.map(() => embedded[next++]!)));
  return valid.map((e, i) => {
    const passageVectors = passageVectorsOf[i]!;
    const sentenceVectors = sentenceVectorsOf[i]!;
    const contextVectors = contextVectorsOf[i]!;
    const all = [
      vectors[i],
      topicVectors[i],
      ...passageVectors,
      ...sentenceVectors.flat(),
      ...contextVectors.flat(),
    ].filter((v): v is CachedVector => v !== undefined);
    return {
      id: e.id,
      version: Number(e.version),
      sources: all.map((v) => v.origin),
      doc: entrySource({
        entry: e,
        model: all.length > 0 ? deps.cache.model : '',
        passages: passagesOf[i]!,
        vector: vectors[i],
        topicVector: topicVectors[i],
        passageVectors,
        sentenceVectors,
        contextVectors,
      }),
    };
  });
}

/**
 * Content characters prepared and written at a time in one IndexEntries call (an entry over it
 * goes alone): ~1,300 texts to embed, several seconds of the local model, so of a call with three
 * entries at the content bound the first is searchable after a third of the time.
 */
export const CONTENT_CHARS_PER_GROUP = 50_000;

/**
 * IndexEntries: splits each entry's content into passages, embeds the entry and every passage
 * (through the cache), and indexes them as one document with the entry's version as the
 * external version, so an entry and its passages are replaced together or not at all. Entries
 * are prepared and written in groups (CONTENT_CHARS_PER_GROUP).
 */
export function indexEntries(deps: EmbeddingDeps, req: similarityV1.IndexEntriesRequest__Output) {
  const { tenantId } = writeCaller(req.caller);
  return indexDocuments(
    deps,
    {
      kind: 'entries',
      field: 'entries',
      docs: req.entries,
      targetIndex: req.target_index,
      tenantId,
      sameVersionReplaces: true,
      groupWeight: { of: (e) => e.content.length, max: CONTENT_CHARS_PER_GROUP },
    },
    problem,
    async (valid) => {
      try {
        return await prepareAll(deps, valid);
      } catch (err) {
        if (!isRefusal(err)) throw err;
      }
      // The embedder refused a text: prepare the entries one at a time, so the one it belongs to
      // fails (an index error the knowledge service records) and the others are indexed.
      const out: (BulkDoc | RefusedDoc)[] = [];
      for (const e of valid) {
        try {
          out.push(...(await prepareAll(deps, [e])));
        } catch (err) {
          if (!isRefusal(err)) throw err;
          out.push({ id: e.id, refused: `embedding_refused: ${(err as Error).message}` });
        }
      }
      return out;
    },
  );
}
