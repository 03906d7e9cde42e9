import type { Client, estypes } from '@elastic/elasticsearch';
import type { AnswerType } from '@kb/text';
import { withElasticsearch } from './es-errors';
import { copyPreference } from './copy-preference';
import { cosineOfScore, numCandidates } from './knn';
import {
  PASSAGE_ANSWERS_PATH,
  PASSAGE_STEMS_PATH,
  PASSAGE_VECTOR_PATH,
  PASSAGES_PATH,
  HAS_TOPIC_PATH,
  SENTENCE_CENTRALITY_PATH,
  SENTENCE_CONTEXT_VECTOR_PATH,
  SENTENCE_VECTOR_PATH,
  SENTENCES_PATH,
  TOPIC_VECTOR_PATH,
} from './mappings';
import { multiSearchError, type SearchFilter } from './search-queries';

/** A passage an inner hit named: where it sits in the indexed content, and its raw score there. */
export interface PassageMatch {
  start: number;
  end: number;
  /** BM25 of its stems (keyword inner hits) or its vector's cosine (kNN inner hits). */
  score: number;
  /** Sentence inner hits: the sentence's centrality in its entry (absent where not indexed). */
  centrality?: number;
  /**
   * Keyword inner hits, where the reading asks for them (PassageReading.passageTerms): which of the
   * question's stems the passage contains, and which of the kinds of answer it asks for the
   * passage states (as answerTerm gives them).
   */
  terms?: string[];
}

/** What the searches of an entry search found, per entry, with the passages behind each. */
export interface EntryMatches {
  keyword: {
    id: string;
    version: number;
    /** Raw BM25 of the named clauses: title/summary/similarity_text, entry stems, best passage, search_keywords. */
    text: number;
    stems: number;
    passage: number;
    keywords: number;
    passages: PassageMatch[];
    /** Whether the entry's document has a topic vector (read when passages are asked for). */
    hasTopic?: boolean;
  }[];
  vector: { id: string; version: number; cosine: number; passages: PassageMatch[]; hasTopic?: boolean }[];
  /** Present when passages were asked for: the best sentences' cosines, as their passages (offsets). */
  sentence?: { id: string; version: number; passages: PassageMatch[] }[];
  /** Present when passages were asked for: each entry's best sentence read with its title and headings (cosine). */
  context?: { id: string; version: number; cosine: number }[];
  /** Present when passages were asked for: the entry's topic (title, summary, similarity_text) vector's cosine. */
  topic?: { id: string; version: number; cosine: number }[];
  /**
   * The share (0-1) of the question's terms that no entry the search could see contains (title,
   * summary, keywords or content, after analysis); of its readings (termGroups), the smallest.
   * A question about something the knowledge base never mentions has a high share: relevance
   * counts it (FusionProfile.relevance). Absent when no terms were counted.
   */
  unknownTerms?: number;
}

/** At most this many distinct query terms are counted for EntryMatches.unknownTerms. */
export const MAX_COUNTED_TERMS = 32;
const TERMS_AGG = 'known_terms';

/** Entry-level text fields (the query as written) beside the stems of title, summary, similarity_text and keywords. */
export const ENTRY_TITLE_FIELDS = ['title^2', 'summary^1.5', 'similarity_text'];

/** The best `size` passages (or sentences) of a hit as inner hits (offsets from doc values); none asked, none read. */
const passageInnerHits = (
  name: string,
  size: number,
  path = PASSAGES_PATH,
  also: string[] = [],
): { inner_hits?: estypes.SearchInnerHits } =>
  size > 0
    ? { inner_hits: { name, size, _source: false, docvalue_fields: [`${path}.start`, `${path}.end`, ...also] } }
    : {};

/**
 * How much of each entry an entry search reads to choose its passages (FusionProfile.passageChoice):
 * its best sentences, and at least this many of its best passages by BM25 and by their vectors, so
 * that the passages its sentences point to carry their words' and their vector's evidence too (a
 * passage a side did not name counts 0 there). Only when passages are asked for.
 */
export interface PassageReading {
  sentencesPerHit: number;
  keywordPassagesPerHit: number;
  vectorPassagesPerHit: number;
  /**
   * Whether the keyword search also says which of the question's stems each passage it reads
   * contains (PassageMatch.terms; named term clauses that add nothing to the score), so that the
   * passages can be chosen by the words their entry does not use everywhere (rankEntries).
   */
  passageTerms: boolean;
}

/** The name of a passage-term clause: this prefix, then the stem (or answerTerm). */
const TERM_NAME = 'term:';

/** A kind of answer as a passage's term (PassageMatch.terms): no stem has angle brackets. */
export const answerTerm = (type: AnswerType) => `<${type}>`;

/**
 * Passages a side's inner hits read per entry: those asked for (`passagesPerHit`), or more where
 * the profile reads more; none when none are asked for.
 */
export const passagesReadPerSide = (passagesPerHit: number, atLeast: number) =>
  passagesPerHit > 0 ? Math.max(passagesPerHit, atLeast) : 0;

/**
 * The keyword search returns this many times the vector searches' candidates. A paraphrase shares
 * few words with its entry, whose BM25 then often ranks below the first 30 though its vectors
 * find it; an entry that search does not return counts 0 for its words, and one found by its
 * sentences alone is not ranked. Deeper, every entry the vectors find has its words' evidence
 * too, at the price of a BM25 query (measured on one index, docs/search.md: English recall@5
 * 0.846 → 0.878, recall@10 0.936 → 0.974, p50 unchanged).
 */
export const KEYWORD_DEPTH = 2;

/**
 * The searches of an entry search as one multi-search (one round trip), all filtered inside
 * the query and reading nothing of _source:
 * - keyword: BM25 of the query over the title fields and search_keywords, and of its stems over
 *   the entry's stems and (nested, best passage counts) the passages' stems, KEYWORD_DEPTH × `size`
 *   entries, the best `passagesPerHit` passages (or the reading's keywordPassagesPerHit, if more)
 *   as inner hits;
 * - vector: kNN over the passages' vectors (an entry scores as its best passage), the best
 *   `passagesPerHit` passages (or vectorPassagesPerHit) as inner hits;
 * - when passages are asked for, sentence: kNN over the sentences' own vectors, an entry's
 *   `sentencesPerHit` best as inner hits (they choose its passages); and context: kNN over the
 *   sentences read with the entry's title and their passage's headings (an entry scores as its
 *   best; it ranks entries); and topic: kNN over the entries' topic vectors (title, summary and
 *   similarity_text; it ranks entries).
 */
export function entrySearchBodies(q: {
  query: string;
  stems: string;
  size: number;
  passagesPerHit: number;
  /** How much of each entry is read to choose its passages, when passages are asked for. */
  reading: PassageReading;
  filter: SearchFilter;
  queryVector: Float32Array;
  /** The query's terms per reading (queryTermGroups): each is counted in the entries the filter lets through. */
  termGroups?: string[][];
  /** The kinds of answer the question asks for (askedAnswerTypes), named with its terms where the reading says. */
  answerTypes?: AnswerType[];
}): estypes.SearchSearchRequestBody[] {
  const { query, stems, size, filter } = q;
  const perSide = (atLeast: number) => passagesReadPerSide(q.passagesPerHit, atLeast);
  const should: estypes.QueryDslQueryContainer[] = [
    { multi_match: { query, fields: ENTRY_TITLE_FIELDS, type: 'best_fields', _name: 'text' } },
    { match: { search_keywords: { query, _name: 'keywords' } } },
  ];
  if (stems !== '') {
    should.push(
      { match: { stems: { query: stems, _name: 'stems' } } },
      {
        nested: {
          path: PASSAGES_PATH,
          score_mode: 'max',
          _name: 'passage',
          query: passageTermsQuery(stems, q.reading.passageTerms && q.passagesPerHit > 0, q.answerTypes ?? []),
          ...passageInnerHits('keyword', perSide(q.reading.keywordPassagesPerHit)),
        },
      },
    );
  }
  const queryVector = Array.from(q.queryVector);
  // With the topic search, the searches that find candidates say whether each has a topic vector.
  const topicMarker = q.passagesPerHit > 0 ? { docvalue_fields: [HAS_TOPIC_PATH] } : {};
  const knn = (
    field: string,
    innerHits: { inner_hits?: estypes.SearchInnerHits },
    fields: { docvalue_fields?: string[] } = {},
  ): estypes.SearchSearchRequestBody => ({
    size,
    _source: false,
    version: true,
    ...fields,
    knn: {
      field,
      query_vector: queryVector,
      k: size,
      num_candidates: numCandidates(size),
      filter: [filter],
      ...innerHits,
    },
  });
  return [
    {
      size: KEYWORD_DEPTH * size,
      _source: false,
      version: true,
      query: { bool: { filter: [filter], should, minimum_should_match: 1 } },
      ...topicMarker,
      ...termCounts(q.termGroups ?? []),
    },
    knn(PASSAGE_VECTOR_PATH, passageInnerHits('vector', perSide(q.reading.vectorPassagesPerHit)), topicMarker),
    // Which passages state it (the entries' best sentences), and the best sentence in its context.
    ...(q.passagesPerHit > 0
      ? [
          knn(
            SENTENCE_VECTOR_PATH,
            passageInnerHits('sentence', q.reading.sentencesPerHit, SENTENCES_PATH, [SENTENCE_CENTRALITY_PATH]),
          ),
          knn(SENTENCE_CONTEXT_VECTOR_PATH, {}),
          knn(TOPIC_VECTOR_PATH, {}),
        ]
      : []),
  ];
}

/**
 * BM25 of the question's stems over a passage's stems; with `named`, each distinct stem (at most
 * MAX_COUNTED_TERMS) and each kind of answer asked for also as a named term clause of boost 0, so
 * the inner hits say which stems each passage contains and which kinds it states without
 * changing any score.
 */
function passageTermsQuery(stems: string, named: boolean, answers: AnswerType[]): estypes.QueryDslQueryContainer {
  const match: estypes.QueryDslQueryContainer = { match: { [PASSAGE_STEMS_PATH]: { query: stems } } };
  if (!named) return match;
  const distinct = [...new Set(stems.split(' ').filter((t) => t !== ''))].slice(0, MAX_COUNTED_TERMS);
  const clause = (field: string, value: string, term: string) => ({
    term: { [field]: { value, boost: 0, _name: TERM_NAME + term } },
  });
  return {
    bool: {
      must: [match],
      should: [
        ...distinct.map((t) => clause(PASSAGE_STEMS_PATH, t, t)),
        ...answers.map((a) => clause(PASSAGE_ANSWERS_PATH, a, answerTerm(a))),
      ],
    },
  };
}

/**
 * How many entries contain each query term, as an aggregation of the keyword search: an entry that
 * contains a term matches that search (its stems or a passage's), so the counts are over the
 * entries the filter lets through (this caller's visible ones), never more. The readings go along
 * as the aggregation's `meta`, which Elasticsearch returns with the buckets.
 */
function termCounts(groups: string[][]): { aggs?: Record<string, estypes.AggregationsAggregationContainer> } {
  const counted = [...new Set(groups.flat())].slice(0, MAX_COUNTED_TERMS);
  if (counted.length === 0) return {};
  const filters: Record<string, estypes.QueryDslQueryContainer> = {};
  counted.forEach((term, i) => {
    filters[String(i)] = {
      bool: {
        should: [
          { term: { stems: term } },
          { nested: { path: PASSAGES_PATH, query: { term: { [PASSAGE_STEMS_PATH]: term } } } },
        ],
      },
    };
  });
  const readings = groups.map((g) => g.map((t) => counted.indexOf(t)).filter((i) => i >= 0)).filter((g) => g.length);
  return { aggs: { [TERMS_AGG]: { filters: { filters }, meta: { readings } } } };
}

/** EntryMatches.unknownTerms from the keyword search's term counts (undefined without them). */
export function unknownTermShare(aggregations: Record<string, unknown> | undefined): number | undefined {
  const agg = aggregations?.[TERMS_AGG] as
    { buckets?: Record<string, { doc_count?: number }>; meta?: { readings?: number[][] } } | undefined;
  const readings = agg?.meta?.readings ?? [];
  if (!agg?.buckets || readings.length === 0) return undefined;
  const unknown = (i: number) => (Number(agg.buckets?.[String(i)]?.doc_count ?? 0) > 0 ? 0 : 1);
  return Math.min(...readings.map((r) => r.reduce((n, i) => n + unknown(i), 0) / r.length));
}

type Hit = estypes.SearchHit<unknown>;

/** The stems an inner hit's named term clauses matched (passageTermsQuery); undefined when none were named. */
function matchedTerms(h: Hit): string[] | undefined {
  const named = h.matched_queries as string[] | Record<string, number> | undefined;
  if (named === undefined) return undefined;
  const names = Array.isArray(named) ? named : Object.keys(named);
  return names.filter((n) => n.startsWith(TERM_NAME)).map((n) => n.slice(TERM_NAME.length));
}

function passagesOf(
  hit: Hit,
  name: string,
  score: (s: number | null | undefined) => number,
  path = PASSAGES_PATH,
): PassageMatch[] {
  const inner = hit.inner_hits?.[name]?.hits.hits ?? [];
  return inner.flatMap((h) => {
    const start = Number(h.fields?.[`${path}.start`]?.[0]);
    const end = Number(h.fields?.[`${path}.end`]?.[0]);
    const centrality = h.fields?.[SENTENCE_CENTRALITY_PATH]?.[0] as number | undefined;
    const terms = matchedTerms(h);
    return Number.isInteger(start) && Number.isInteger(end) && end > start
      ? [
          {
            start,
            end,
            score: score(h._score),
            ...(typeof centrality === 'number' ? { centrality } : {}),
            ...(terms ? { terms } : {}),
          },
        ]
      : [];
  });
}

/** Runs entrySearchBodies against `index`; a failed search fails the call as its own request would. */
export async function entryMatches(
  es: Client,
  index: string,
  bodies: estypes.SearchSearchRequestBody[],
): Promise<EntryMatches> {
  // The first (keyword) search holds the query and the filter: what defines the request.
  const header = { preference: copyPreference(index, JSON.stringify(bodies[0] ?? null)) };
  const res = await withElasticsearch(() =>
    es.msearch({ index, include_named_queries_score: true, searches: bodies.flatMap((body) => [header, body]) }),
  );
  const answers = res.responses.map((r) => {
    if ('error' in r) throw multiSearchError(r);
    return r;
  });
  const [keyword, vector, sentence, context, topic] = answers.map((r) => r.hits.hits);
  const cosines = (hits: Hit[]) =>
    hits.map((h) => ({ id: h._id!, version: Number(h._version ?? 0), cosine: cosineOfScore(h._score) }));
  const unknownTerms = unknownTermShare(answers[0]?.aggregations);
  // Read with the topic search only (passages asked for); a document without the field has no topic vector.
  const hasTopic = (h: Hit) => (topic ? { hasTopic: h.fields?.[HAS_TOPIC_PATH]?.[0] === true } : {});
  const named = (h: Hit, name: string) =>
    Number((h.matched_queries as Record<string, number> | undefined)?.[name] ?? 0);
  return {
    keyword: keyword!.map((h) => ({
      id: h._id!,
      version: Number(h._version ?? 0),
      text: named(h, 'text'),
      stems: named(h, 'stems'),
      passage: named(h, 'passage'),
      keywords: named(h, 'keywords'),
      passages: passagesOf(h, 'keyword', (s) => s ?? 0),
      ...hasTopic(h),
    })),
    vector: vector!.map((h) => ({
      id: h._id!,
      version: Number(h._version ?? 0),
      cosine: cosineOfScore(h._score),
      passages: passagesOf(h, 'vector', cosineOfScore),
      ...hasTopic(h),
    })),
    ...(sentence
      ? {
          sentence: sentence.map((h) => ({
            id: h._id!,
            version: Number(h._version ?? 0),
            passages: passagesOf(h, 'sentence', cosineOfScore, SENTENCES_PATH),
          })),
        }
      : {}),
    ...(context ? { context: cosines(context) } : {}),
    ...(topic ? { topic: cosines(topic) } : {}),
    ...(unknownTerms !== undefined ? { unknownTerms } : {}),
  };
}
