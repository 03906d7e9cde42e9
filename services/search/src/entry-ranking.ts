import { askedAnswerTypes, analyzeText, questionLanguage } from '@kb/text';
import type { EntryMatches, PassageMatch, PassageReading } from './entry-queries';
import { TEXT_SHARE } from './hybrid-ranking';
import { byScoreThenId } from './similar-products';

// How an entry search ranks what its searches found (entry-queries.ts): shared by the similarity
// service and the gateway's read path, so both answer the same hits with the same scores.

/**
 * How keyword and vector evidence mix, by whether the embedding model knows the question's
 * language (measured with `npm run eval`, docs/eval.md and docs/search.md):
 * - `semantic` (a language of EMBEDDING_LANGUAGES, or none named): meaning weighs a little more
 *   than words; each BM25 clause is divided by its best in the list plus `damping`, so when even
 *   the best keyword match is weak (a paraphrase) it stays weak, and a strong one (the question's
 *   own words) counts fully.
 * - `lexical` (a language the model does not know, e.g. German on the local English model): its
 *   vectors say little, so the words weigh most, each clause relative to its best in the list.
 */
export interface FusionProfile {
  keywordWeight: number;
  /**
   * How much a passage's own BM25 counts in choosing an entry's passages (the rest is its
   * meaning). Lower than keywordWeight where the model knows the language: a paraphrase shares
   * few words with the sentence that answers it (docs/search.md, "Choosing the passages").
   */
  passageKeywordWeight: number;
  /**
   * An entry's meaning (ranking and relevance), when its sentences were searched (passages asked
   * for): these shares of its best passage's cosine, its best sentence's, its best sentence's
   * read with the entry's title and the passage's headings (`context`), and its topic's (title,
   * summary and similarity_text). A question in the fact's own words matches that sentence far
   * better than the passage around it, a paraphrase matches it better still with what it is
   * about in front of it, and the topic says which entry is about what the question asks. Only
   * the passage counts where the model does not know the language (docs/search.md, "Sentences
   * rank entries too", "The entry's topic"). Without sentence searches, the meaning is the best
   * passage's cosine.
   */
  meaning: MeaningShares;
  /**
   * Choosing an entry's passages (when passages are asked for): how much of each entry is read
   * (PassageReading: its best sentences, as the sentence search's inner hits, and at least so
   * many of its best passages by BM25 and by vector), and how much of its centrality a sentence's
   * cosine loses (its cosine to the centroid of its entry's sentences: a sentence that restates
   * what the whole entry is about is near every question on the entry's subject, while the one
   * that answers says something the rest does not). More read and a larger penalty where the
   * model knows the language; where it does not, its cosines say little and more of them choose
   * worse (docs/search.md, "More of each entry read"). An entry's rank takes its best sentence's
   * cosine without the centrality penalty (a template line's less REPEATED_SENTENCE_PENALTY).
   * With `passageTerms` (where the model does not know the language, so words choose), a
   * passage's words count by how few of its entry's passages have them, not by BM25 over the
   * whole index (entryTermWeights).
   */
  passageChoice: PassageReading & { centralityPenalty: number };
  /** Added to the best BM25 before dividing by it; undefined: divided by the best alone. */
  damping?: number;
  /**
   * Relevance = logistic(intercept + cosine × the entry's meaning (FusionProfile.meaning) + keyword ×
   * score_sources.keyword + score × score + unknownTerms × the share of the question's terms that
   * no entry searched contains (EntryMatches.unknownTerms)),
   * fitted on `npm run eval` so that 0.5 separates the answering entries of answerable questions
   * from every hit of questions nothing answers as well as the signals allow (docs/search.md,
   * "Relevance").
   */
  relevance: { intercept: number; cosine: number; keyword: number; score: number; unknownTerms: number };
}
/** Shares of an entry's meaning; they add up to 1. */
export interface MeaningShares {
  passage: number;
  sentence: number;
  context: number;
  topic: number;
}
export const SEMANTIC: FusionProfile = {
  keywordWeight: 0.35,
  passageKeywordWeight: 0.2,
  meaning: { passage: 0.1, sentence: 0.25, context: 0.5, topic: 0.15 },
  passageChoice: {
    sentencesPerHit: 30,
    keywordPassagesPerHit: 15,
    vectorPassagesPerHit: 10,
    passageTerms: false,
    centralityPenalty: 0.5,
  },
  damping: 20,
  relevance: { intercept: -3.82, cosine: 11, keyword: 1.15, score: 0, unknownTerms: -1.5 },
};
export const LEXICAL: FusionProfile = {
  keywordWeight: 0.6,
  passageKeywordWeight: 0.6,
  meaning: { passage: 0.4, sentence: 0.2, context: 0.2, topic: 0.2 },
  passageChoice: {
    sentencesPerHit: 12,
    keywordPassagesPerHit: 10,
    vectorPassagesPerHit: 0,
    passageTerms: true,
    centralityPenalty: 0.3,
  },
  relevance: { intercept: -2.83, cosine: 0, keyword: 0, score: 9, unknownTerms: -2 },
};

/**
 * A match in an entry's search_keywords (curated by its editor) adds this much to its score, in
 * every profile, relative to the best such match in the list: the editor's explicit intent
 * outranks a title or meaning match, as in product search.
 */
export const CURATED_KEYWORDS_WEIGHT = 0.3;

/**
 * A passage's meaning: its best sentence's cosine weighs this much, its own vector's the rest
 * (when sentence matches are there). The fact is one sentence; the passage's vector blurs it.
 */
export const SENTENCE_SHARE = 0.85;

/**
 * The meaning shares a ranking uses: the profile's, or, where a signal is missing (no entry of the
 * search had a sentence read in context; this entry has no topic vector: indexed by an earlier
 * release, until it is written again or `reindex entries`), its share spread over the others in
 * their proportion, so such an entry's meaning stays on the same scale.
 */
export function meaningShares(shares: MeaningShares, found: { context: boolean; topic: boolean }): MeaningShares {
  const missing = (found.context ? 0 : shares.context) + (found.topic ? 0 : shares.topic);
  if (missing === 0) return shares;
  const total = shares.passage + shares.sentence + shares.context + shares.topic;
  const rest = total - missing;
  if (rest <= 0) return { passage: total, sentence: 0, context: 0, topic: 0 }; // nothing else: the passage alone
  const keep = (share: number, present = true) => (present ? (share * total) / rest : 0);
  return {
    passage: keep(shares.passage),
    sentence: keep(shares.sentence),
    context: keep(shares.context, found.context),
    topic: keep(shares.topic, found.topic),
  };
}

/**
 * The calibrated relevance (0-1) of a hit with these signals; `unknownTerms` is the question's
 * (0-1: the share of its terms that no entry searched contains, EntryMatches.unknownTerms).
 */
export function relevanceOf(
  profile: FusionProfile,
  cosine: number,
  keyword: number,
  score: number,
  unknownTerms = 0,
): number {
  const r = profile.relevance;
  const logit = r.intercept + r.cosine * cosine + r.keyword * keyword + r.score * score + r.unknownTerms * unknownTerms;
  return 1 / (1 + Math.exp(-logit));
}

export const profileFor = (language: string | null | undefined, modelLanguages: readonly string[]) =>
  !language || modelLanguages.includes(language.slice(0, 2).toLowerCase()) ? SEMANTIC : LEXICAL;

/**
 * The profile of a question: by the language it was asked in, else by the one it is written in
 * when that can be told (detectQuestionLanguage: a German question ranks by its words on an
 * English model whether or not the caller said so), else semantic. The detected language is no
 * filter: entries of every language are still searched.
 */
export const questionProfile = (
  query: string,
  language: string | null | undefined,
  modelLanguages: readonly string[],
) => profileFor(questionLanguage(query, language), modelLanguages);

export interface RankedPassage {
  start: number;
  end: number;
  score: number;
  cosine: number;
}

export interface RankedEntryHit {
  id: string;
  score: number;
  score_sources: Record<string, number>;
  version: number;
  /** The best passage's cosine (0 when kNN did not find the entry): a signal on the model's own scale. */
  cosine: number;
  /** 0-1, calibrated (FusionProfile.relevance): at 0.5 and above the entry most likely answers. */
  relevance: number;
  passages: RankedPassage[];
}

/**
 * The query's terms, one list per way it may be read: in the language asked for, else in each
 * language entries are stemmed in ('en', 'de'). Distinct terms, in order.
 */
export function queryTermGroups(query: string, language: string | null | undefined): string[][] {
  const terms = (lang: string) => [
    ...new Set(
      analyzeText(query, lang)
        .split(' ')
        .filter((t) => t !== ''),
    ),
  ];
  return language ? [terms(language)] : [terms('en'), terms('de')];
}

/** The query's stems: in the language asked for, else in every language entries are stemmed in (the union). */
export function queryStems(query: string, language: string | null | undefined): string {
  if (language) return analyzeText(query, language);
  return [...new Set([...analyzeText(query, 'en').split(' '), ...analyzeText(query, 'de').split(' ')])]
    .filter((t) => t !== '')
    .join(' ');
}

/**
 * What an entry search reads of its question (entrySearchBodies): its stems, its terms per
 * reading and the kinds of answer it asks for, each in the language asked for, else in the one it
 * is written in when that can be told (detectQuestionLanguage), else in each language entries are
 * analysed in. A language read is no filter: entries of every language are still searched.
 */
export const questionTerms = (query: string, language: string | null | undefined) =>
  termsReadIn(query, questionLanguage(query, language));

/** The question's terms read in `reading` (undefined: in each language entries are analysed in). */
const termsReadIn = (query: string, reading: string | undefined) => ({
  stems: queryStems(query, reading),
  termGroups: queryTermGroups(query, reading),
  answerTypes: askedAnswerTypes(query, reading),
});

/**
 * How an entry search reads its question: the language told once (questionLanguage), and from it
 * the profile (questionProfile) and the terms (questionTerms).
 */
export function readQuestion(query: string, language: string | null | undefined, modelLanguages: readonly string[]) {
  const reading = questionLanguage(query, language);
  return { profile: profileFor(reading, modelLanguages), terms: termsReadIn(query, reading) };
}

/** A passage an entry search named, with what each search said of it (rankEntries). */
export interface PassageCandidate {
  start: number;
  end: number;
  /** Its BM25 as a 0-1 signal (0: the keyword search did not name it). */
  keyword: number;
  /** Its vector's cosine (undefined: the vector search did not name it). */
  own?: number;
  /** Its sentences the sentence search named: cosine less the centrality penalty, and which sentence. */
  sentences: { value: number; key: string }[];
  /** The question's stems it contains, where the keyword search said (PassageMatch.terms). */
  terms?: string[];
}

/**
 * An entry's passages' keyword signals (0-1) from the words they share with the question, each
 * stem weighing as BM25's IDF over the entry's passages (those the searches named): a word the
 * entry uses in most of them (its subject: "Lastschrift" in an article on direct debits) tells
 * its passages apart no better than a stopword, however rare it is in the index, while the word
 * only the answering passage shares with the question does. Divided by the best in the entry.
 * Unchanged where the keyword search said no passage's terms.
 */
export function entryTermWeights(candidates: PassageCandidate[]): void {
  if (!candidates.some((c) => c.terms !== undefined)) return;
  const n = candidates.length;
  const df = new Map<string, number>();
  for (const c of candidates) for (const t of c.terms ?? []) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t: string) => Math.log(1 + (n - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
  const raw = candidates.map((c) => (c.terms ?? []).reduce((sum, t) => sum + idf(t), 0));
  const top = Math.max(0, ...raw);
  candidates.forEach((c, i) => (c.keyword = top > 0 ? raw[i]! / top : 0));
}

/**
 * One sentence, whichever passage it was read in: a sentence in the overlap of two passages, or
 * one repeated word for word, has one vector, so the same cosine and centrality.
 */
const sentenceKey = (m: PassageMatch) => `${m.score}|${m.centrality ?? ''}`;

/**
 * A sentence stated word for word in more than one place (twice in its entry, or in another entry
 * the search found too) loses this much of its cosine, in choosing passages and as its entry's
 * best sentence (in every profile): a template's line ("Our service team is happy to help.") is
 * boilerplate, not the one statement that answers (docs/search.md, "A sentence stated in more
 * than one place").
 */
export const REPEATED_SENTENCE_PENALTY = 0.2;

/**
 * The sentences (by cosine: identical sentences have identical vectors) the sentence search found
 * in more than one entry.
 */
function sentencesOfSeveralEntries(found: { id: string; passages: PassageMatch[] }[]): Set<number> {
  const entryOf = new Map<number, string>();
  const shared = new Set<number>();
  for (const h of found) {
    for (const m of h.passages) {
      const other = entryOf.get(m.score);
      if (other === undefined) entryOf.set(m.score, h.id);
      else if (other !== h.id) shared.add(m.score);
    }
  }
  return shared;
}

/**
 * The sentences (by sentenceKey) an entry's sentence matches find in more than one place: in
 * passages that do not overlap (a sentence in the overlap of two passages is one sentence read
 * twice). Identical sentences have identical vectors, so all their copies score alike and are
 * read together.
 */
function repeatedSentences(matches: PassageMatch[]): Set<string> {
  /** Per sentence, the furthest end of the passages its copies were read in so far (in order of start). */
  const reach = new Map<string, number>();
  const repeated = new Set<string>();
  for (const m of [...matches].sort((a, b) => a.start - b.start)) {
    const key = sentenceKey(m);
    const end = reach.get(key);
    if (end !== undefined && m.start >= end) repeated.add(key);
    reach.set(key, Math.max(end ?? m.end, m.end));
  }
  return repeated;
}

/**
 * An entry's `n` best passages, best first: each scores pkw × its BM25 signal + (1 − pkw) × its
 * meaning (SENTENCE_SHARE of its best sentence, the rest its own cosine; its cosine alone where the
 * sentence search found none of the entry's sentences). Chosen one at a time: a sentence that chose a passage
 * counts no more for the others, so two passages that overlap around one sentence (or repeat it)
 * are not both returned for it; each is then scored by its next best sentence.
 */
export function choosePassages(
  candidates: PassageCandidate[],
  bySentences: boolean,
  pkw: number,
  n: number,
): RankedPassage[] {
  const used = new Set<string>();
  const scored = (c: PassageCandidate) => {
    const cosine = c.own ?? 0;
    let best: { value: number; key: string } | undefined;
    for (const x of c.sentences) if (!used.has(x.key) && (!best || x.value > best.value)) best = x;
    const said = bySentences ? (1 - SENTENCE_SHARE) * cosine + SENTENCE_SHARE * (best?.value ?? 0) : cosine;
    return {
      passage: { start: c.start, end: c.end, cosine, score: pkw * c.keyword + (1 - pkw) * said },
      key: best?.key,
    };
  };
  const chosen: RankedPassage[] = [];
  const left = [...candidates];
  while (chosen.length < n && left.length > 0) {
    let at = 0;
    let top = scored(left[0]!);
    for (let i = 1; i < left.length; i++) {
      const next = scored(left[i]!);
      const { score, start } = next.passage;
      if (score > top.passage.score || (score === top.passage.score && start < top.passage.start)) {
        at = i;
        top = next;
      }
    }
    chosen.push(top.passage);
    if (top.key !== undefined) used.add(top.key);
    left.splice(at, 1);
  }
  return chosen;
}

/**
 * Keyword part: each clause's BM25 made a 0-1 signal (see FusionProfile); title fields, entry
 * stems and best passage count as one text signal (their maximum). Vector part: the entry's
 * meaning, its best passage's cosine (clipped at 0) or, when sentences were searched, the
 * profile's shares of it, of its best sentence's, of its best sentence's in context and of its
 * topic's (FusionProfile.meaning; meaningShares where a signal is missing). search_keywords on
 * top (CURATED_KEYWORDS_WEIGHT).
 *
 * A passage scores from its own BM25 (passageKeywordWeight) and its meaning, where its meaning is
 * mostly its best sentence's cosine less the profile's centrality penalty × that sentence's centrality
 * (SENTENCE_SHARE) and the rest its own vector's (when sentence matches are there): a fact is one
 * sentence among same-topic ones, which the passage's vector blurs (docs/search.md). A side
 * that did not name the passage counts 0 for it (measured: better than its weakest named one).
 * A hit keeps its `passagesPerHit` best, a sentence choosing one passage only (choosePassages).
 */
export function rankEntries(
  matches: EntryMatches,
  limit: number,
  passagesPerHit: number,
  profile: FusionProfile = SEMANTIC,
): RankedEntryHit[] {
  const kw = profile.keywordWeight;
  const vw = 1 - kw;
  const pkw = profile.passageKeywordWeight;
  const penalty = profile.passageChoice.centralityPenalty;
  type Part = {
    keyword: number;
    curated: number;
    vector: number;
    /** The best sentence's cosine, when the entry's sentences were found. */
    sentence?: number;
    /** The best sentence's cosine read in its context (title, headings), when found. */
    context?: number;
    /** The entry's topic vector's cosine, when found. */
    topic?: number;
    /** Whether its document has a topic vector (an entry indexed by an earlier release has none). */
    hasTopic: boolean;
    version: number;
    passages: Map<number, PassageCandidate>;
  };
  const parts = new Map<string, Part>();
  const part = (id: string, version: number) => {
    let p = parts.get(id);
    if (!p) parts.set(id, (p = { keyword: 0, curated: 0, vector: 0, version, hasTopic: false, passages: new Map() }));
    p.version = Math.max(p.version, version);
    return p;
  };
  const passage = (p: Part, m: PassageMatch) => {
    let r = p.passages.get(m.start);
    if (!r) p.passages.set(m.start, (r = { start: m.start, end: m.end, keyword: 0, sentences: [] }));
    return r;
  };
  const k = matches.keyword;
  const best = (xs: number[]) => Math.max(0, ...xs);
  const damping = profile.damping ?? 0;
  const signal = (top: number) => (x: number) => (top > 0 ? x / (top + damping) : 0);
  const text = signal(best(k.map((h) => h.text)));
  const stems = signal(best(k.map((h) => h.stems)));
  const inPassage = signal(best(k.map((h) => h.passage)));
  const topKeywords = best(k.map((h) => h.keywords));
  const curated = (x: number) => (topKeywords > 0 ? x / topKeywords : 0);
  const passageBm25 = signal(best(k.flatMap((h) => h.passages.map((x) => x.score))));
  for (const h of k) {
    const p = part(h.id, h.version);
    // TEXT_SHARE of the keyword half, as product search weighs its text fields beside search_keywords.
    p.keyword = TEXT_SHARE * Math.max(text(h.text), stems(h.stems), inPassage(h.passage));
    p.curated = curated(h.keywords);
    p.hasTopic ||= h.hasTopic === true;
    for (const m of h.passages) {
      const r = passage(p, m);
      r.keyword = passageBm25(m.score);
      if (m.terms) r.terms = m.terms;
    }
  }
  for (const h of matches.vector) {
    const p = part(h.id, h.version);
    p.vector = Math.max(0, h.cosine);
    p.hasTopic ||= h.hasTopic === true;
    for (const m of h.passages) passage(p, m).own = Math.max(0, m.score);
  }
  const shared = sentencesOfSeveralEntries(matches.sentence ?? []);
  for (const h of matches.sentence ?? []) {
    const p = parts.get(h.id);
    if (!p) continue; // found by sentences alone: not ranked (entries are ranked by passages)
    const repeated = repeatedSentences(h.passages);
    for (const m of h.passages) {
      const key = sentenceKey(m);
      // A template line counts less for its entry too: it says nothing of which entry answers.
      const cosine = m.score - (repeated.has(key) || shared.has(m.score) ? REPEATED_SENTENCE_PENALTY : 0);
      passage(p, m).sentences.push({ value: Math.max(cosine - penalty * (m.centrality ?? 0), 0), key });
      p.sentence = Math.max(p.sentence ?? 0, cosine, 0);
    }
  }
  for (const h of matches.context ?? []) {
    const p = parts.get(h.id);
    if (p) p.context = Math.max(0, h.cosine);
  }
  for (const h of matches.topic ?? []) {
    const p = parts.get(h.id);
    if (p) p.topic = Math.max(0, h.cosine);
  }
  const contextFound = (matches.context?.length ?? 0) > 0;
  const withTopic = meaningShares(profile.meaning, { context: contextFound, topic: true });
  const withoutTopic = meaningShares(profile.meaning, { context: contextFound, topic: false });
  const hits = [...parts.entries()].map(([id, p]): RankedEntryHit => {
    // Found by neither sentence search: its passage alone; else a side that did not find it counts 0.
    // An entry without a topic vector (indexed by an earlier release) ranks on the other shares.
    const shares = p.hasTopic || p.topic !== undefined ? withTopic : withoutTopic;
    const meaning =
      p.sentence === undefined && p.context === undefined
        ? p.vector
        : shares.passage * p.vector +
          shares.sentence * (p.sentence ?? 0) +
          shares.context * (p.context ?? 0) +
          shares.topic * (p.topic ?? 0);
    const score_sources: Record<string, number> = { keyword: kw * p.keyword, vector: vw * meaning };
    if (p.curated > 0) score_sources['keywords'] = CURATED_KEYWORDS_WEIGHT * p.curated;
    const candidates = [...p.passages.values()];
    if (profile.passageChoice.passageTerms) entryTermWeights(candidates);
    const passages = choosePassages(candidates, p.sentence !== undefined, pkw, passagesPerHit);
    const score = Object.values(score_sources).reduce((a, b) => a + b, 0);
    return {
      id,
      score,
      score_sources,
      version: p.version,
      cosine: p.vector,
      relevance: relevanceOf(profile, meaning, score_sources['keyword']!, score, matches.unknownTerms ?? 0),
      passages,
    };
  });
  hits.sort(byScoreThenId);
  return hits.slice(0, limit);
}
