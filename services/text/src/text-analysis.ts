/**
 * Text analysis for the passage search: the same function turns documents and queries into the
 * whitespace-separated terms an Elasticsearch field with the `whitespace` analyzer indexes. The
 * local Elasticsearch has no stemmers (no analysis-common module), so stemming happens here.
 *
 * Stemming: Snowball English (Porter2) and Snowball German, from NLP.js (`@nlpjs/lang-en-min`,
 * `@nlpjs/lang-de`, MIT, CommonJS). Chosen over `snowball-stemmers` (the same algorithms, same
 * output on 18,000 test words, but ~7-10 µs a word, 30× slower, and one 870 KB file of every
 * language), `natural` (no German stemmer, and it pulls mongoose, pg and redis clients),
 * `@orama/stemmers` (its "english" is the original Porter, not Snowball) and `multilingual-stemmer`
 * (ESM-only WebAssembly). The two NLP.js packages and their `@nlpjs/core` are some 400 KB and load
 * in a few tens of milliseconds, lazily, on the first call.
 */

/** A Snowball stemmer of NLP.js (untyped JavaScript): `stemWord` memoises every word in `cache`. */
interface NlpStemmer {
  stemWord(word: string): string;
  cache: Record<string, string>;
}

type Language = 'en' | 'de' | 'other';

/**
 * English stop words: Lucene's default English set (StopAnalyzer.ENGLISH_STOP_WORDS_SET, 33 words).
 */
// prettier-ignore
const ENGLISH_STOP_WORDS = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it', 'no', 'not', 'of',
  'on', 'or', 'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they', 'this', 'to', 'was', 'will', 'with',
]);

/**
 * German stop words: the short list of Lucene's former GermanAnalyzer (before 3.1), plus the
 * article forms and contracted prepositions it lacked (ein, den, dem, des, zu, zum, zur, vom, ...).
 */
// prettier-ignore
const GERMAN_STOP_WORDS = new Set([
  'einer', 'eine', 'eines', 'einem', 'einen', 'der', 'die', 'das', 'dass', 'daß', 'du', 'er', 'sie', 'es', 'was',
  'wer', 'wie', 'wir', 'und', 'oder', 'ohne', 'mit', 'am', 'im', 'in', 'aus', 'auf', 'ist', 'sein', 'war', 'wird',
  'ihr', 'ihre', 'ihres', 'als', 'für', 'von', 'dich', 'dir', 'mich', 'mir', 'mein', 'kein', 'durch', 'wegen',
  'ein', 'den', 'dem', 'des', 'zu', 'zum', 'zur', 'vom', 'an', 'bei', 'um', 'ich', 'sind',
]);

/**
 * Words: runs of letters (with their combining marks) and digits. In English an apostrophe inside
 * a word keeps it whole (`customer's`, `don't`; Snowball English drops the possessive); in other
 * languages the apostrophe separates.
 */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const ENGLISH_WORD = /[\p{L}\p{M}\p{N}]+(?:['\u2019][\p{L}\p{M}\p{N}]+)*/gu;

/**
 * The analysed terms of `text`: lower-cased, stop words removed, stemmed for `language` ('en', 'de';
 * 'en-GB', 'de_AT' count as their language; anything else: lower-cased tokens, unstemmed), joined by
 * single spaces, in order. A long German compound is followed by the stems of its plausible
 * parts (see germanCompoundParts), so `Versandkosten` also yields the stem of `Kosten`.
 */
export function analyzeText(text: string, language: string | null | undefined): string {
  const lang = languageOf(language);
  const terms: string[] = [];
  const pattern = lang === 'en' ? ENGLISH_WORD : WORD;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    for (const term of termsOf(match[0], lang)) terms.push(term);
  }
  return terms.join(' ');
}

/**
 * Where in `text` the words are that match a query term: offsets [start, end) in `text`, in order,
 * not overlapping. A word matches when one of its analysed terms is one of the query's, the same
 * rule as the search itself: its stem equals the stem of a non-stop-word query term, and in German
 * a compound also matches through its parts (`Versandkosten` for the query `Kosten`, and `Kosten`
 * for the query `Versandkosten`). Stop words never match.
 */
export function markTerms(
  text: string,
  query: string,
  language: string | null | undefined,
): { start: number; end: number }[] {
  const lang = languageOf(language);
  const wanted = new Set(
    analyzeText(query, lang)
      .split(' ')
      .filter((term) => term !== ''),
  );
  const marks: { start: number; end: number }[] = [];
  if (wanted.size === 0) return marks;
  const pattern = lang === 'en' ? ENGLISH_WORD : WORD;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    if (termsOf(match[0], lang).some((term) => wanted.has(term))) {
      marks.push({ start: match.index, end: match.index + match[0].length });
    }
  }
  return marks;
}

let detector: typeof import('tinyld/light') | undefined;
let functionWords: { en: ReadonlySet<string>; de: ReadonlySet<string> } | undefined;

/** A question of fewer words is not told apart: one or two words are too few to tell English from German. */
export const MIN_WORDS_TO_DETECT = 3;

/**
 * The language of a question that does not say it, among those analysed here ('en', 'de'), or
 * undefined when it has fewer than MIN_WORDS_TO_DETECT words or neither way below can tell.
 *
 * First by its function words: a question is mostly made of them ("Can I …", "Was kostet der …"),
 * so the language with more of its words in the Snowball stop list of that language (from
 * `@orama/stopwords`, Apache-2.0: 180 English words, 231 German ones) is the question's; a word in
 * both lists ("was", "in") counts for both. On a tie, by character n-grams (tinyld's light model,
 * MIT, CommonJS: ~2 MB of heap against ~27 MB for its normal model). On the evaluation's 623
 * questions and 36 short support questions of our own, the two together read every one right;
 * tinyld alone read five wrong ("Can I return a final sale item?", "Which stores offer curbside
 * pickup?" as German, "Was kostet der Expressversand?" as English). ~0.1 ms a question.
 */
export function detectQuestionLanguage(text: string): 'en' | 'de' | undefined {
  const words =
    text
      .toLowerCase()
      .replace(/\u2019/g, "'")
      .match(ENGLISH_WORD) ?? [];
  if (words.length < MIN_WORDS_TO_DETECT) return undefined;
  // Loaded on first use, as the stemmers are: most users of @kb/text never detect a language.
  functionWords ??= {
    en: new Set((require('@orama/stopwords/english') as { stopwords: string[] }).stopwords),
    de: new Set((require('@orama/stopwords/german') as { stopwords: string[] }).stopwords),
  };
  let en = 0;
  let de = 0;
  for (const word of words) {
    if (functionWords.en.has(word)) en++;
    if (functionWords.de.has(word)) de++;
  }
  if (en !== de) return en > de ? 'en' : 'de';
  detector ??= require('tinyld/light') as typeof import('tinyld/light');
  const found = detector.detect(text, { only: ['en', 'de'] });
  return found === 'en' || found === 'de' ? found : undefined;
}

/**
 * The language a question is read in: the one the caller named, else the one it is written in
 * when that can be told (detectQuestionLanguage), else undefined (read in each language).
 */
export function questionLanguage(question: string, language: string | null | undefined): string | undefined {
  return language || detectQuestionLanguage(question);
}

function languageOf(language: string | null | undefined): Language {
  const primary = (language ?? '').trim().toLowerCase().split(/[-_]/)[0];
  return primary === 'en' || primary === 'de' ? primary : 'other';
}

// ---------------------------------------------------------------------------------------------
// Terms of one word, memoised

/** Memoised terms per language; cleared (with NLP.js's own memo) when this many words are held. */
const MAX_CACHED_WORDS = 20_000;
const cache: Record<Language, Map<string, readonly string[]>> = { en: new Map(), de: new Map(), other: new Map() };
const NO_TERMS: readonly string[] = [];

function termsOf(word: string, lang: Language): readonly string[] {
  const memo = cache[lang];
  let terms = memo.get(word);
  if (terms === undefined) {
    if (memo.size >= MAX_CACHED_WORDS) {
      memo.clear();
      const stemmer = lang === 'other' ? undefined : loadedStemmers[lang];
      if (stemmer) stemmer.cache = {};
    }
    terms = analyzeWord(word, lang);
    memo.set(word, terms);
  }
  return terms;
}

function analyzeWord(word: string, lang: Language): readonly string[] {
  let lower = word.normalize('NFC').toLowerCase();
  if (lang === 'other') return [lower];
  if (lang === 'en') {
    lower = lower.replace(/\u2019/g, "'");
    if (ENGLISH_STOP_WORDS.has(lower)) return NO_TERMS;
    return [stemmer('en').stemWord(lower)];
  }
  if (GERMAN_STOP_WORDS.has(lower)) return NO_TERMS;
  const german = stemmer('de');
  const stem = german.stemWord(lower);
  const parts = germanCompoundParts(lower);
  if (parts.length === 0) return [stem];
  const terms = [stem];
  for (const part of parts) {
    if (GERMAN_STOP_WORDS.has(part)) continue;
    const partStem = german.stemWord(part);
    if (partStem.length >= 3 && !terms.includes(partStem)) terms.push(partStem);
  }
  return terms;
}

const loadedStemmers: Partial<Record<'en' | 'de', NlpStemmer>> = {};

function stemmer(lang: 'en' | 'de'): NlpStemmer {
  let loaded = loadedStemmers[lang];
  if (!loaded) {
    // Loaded on first use: most users of @kb/text never analyse text.
    loaded =
      lang === 'en'
        ? new (require('@nlpjs/lang-en-min') as { StemmerEn: new () => NlpStemmer }).StemmerEn()
        : new (require('@nlpjs/lang-de') as { StemmerDe: new () => NlpStemmer }).StemmerDe();
    loadedStemmers[lang] = loaded;
  }
  return loaded;
}

// ---------------------------------------------------------------------------------------------
// German decompounding

const VOWELS = new Set(['a', 'e', 'i', 'o', 'u', 'y', 'ä', 'ö', 'ü']);

/** Consonant clusters a German word (or syllable) can begin with. */
// prettier-ignore
const ONSETS = new Set([
  'b', 'c', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'q', 'r', 's', 't', 'v', 'w', 'x', 'z',
  'bl', 'br', 'ch', 'chr', 'dr', 'fl', 'fr', 'gl', 'gr', 'kl', 'kn', 'kr', 'pf', 'pfl', 'pfr', 'ph', 'pl',
  'pr', 'qu', 'sch', 'schl', 'schm', 'schn', 'schr', 'schw', 'sk', 'sp', 'spl', 'spr', 'st', 'str', 'th',
  'tr', 'wr', 'zw',
]);

/** What a left part ends with before a Fugen-s: `arbeit-s`, `zahlung-s`, `sicherheit-s`, `information-s`. */
const BEFORE_LINKING_S = /(?:t|ung|heit|keit|schaft|ion|ling|tum)$/;

/** Right "parts" that are derivational suffixes (with inflection), not words: `möglich|keiten`. */
const SUFFIX_PART = /^(?:heit|keit|schaft|lich|isch|ung|nis|tion|bar|sam|haft|los)(?:e|en|er|es|n|s)?$/;

/** What makes one syllable with an e before it (ei, eu, ee, ey). */
const E_DIPHTHONGS = new Set(['i', 'u', 'e', 'y']);

/** The shortest word decompounded, and the shortest part kept. */
const MIN_COMPOUND_LETTERS = 10;
const MIN_PART_LETTERS = 4;

/** Letter pairs that spell one sound: never split between them (nor between s and ch). */
const DIGRAPHS = new Set(['ch', 'ck', 'ng', 'ph', 'th']);

function insideDigraph(word: string, k: number): boolean {
  return DIGRAPHS.has(word.slice(k - 1, k + 1)) || (word[k - 1] === 's' && word.startsWith('ch', k));
}

/** Consonant sounds in word[from, to): sch, ch, ng, ph and th count once (ck and doubled letters twice). */
function consonantCount(word: string, from: number, to: number): number {
  let count = 0;
  for (let k = from; k < to; count++) {
    if (word.startsWith('sch', k) && k + 3 <= to) k += 3;
    else if (k + 2 <= to && DIGRAPHS.has(word.slice(k, k + 2)) && word.slice(k, k + 2) !== 'ck') k += 2;
    else k++;
  }
  return count;
}

function hasVowel(part: string): boolean {
  for (const c of part) if (VOWELS.has(c)) return true;
  return false;
}

/**
 * Plausible parts of a lower-cased German compound, without a dictionary (a light heuristic).
 * A word of at least 10 letters (a-z, äöüß) is split only where the spelling itself signals a
 * boundary between two words:
 * - a linking s after a typical noun ending, before a consonant a word can start with or a vowel
 *   (`zahlungs|bedingungen`, `arbeits|ende`, `rechts|anwalt`);
 * - a run of three or more consonant sounds (sch, ch, ng, ph, th count once), which German keeps
 *   within one word only rarely, split so that the right part starts with the longest cluster a
 *   word can start with, never inside sch, ch, ck, ng, ph or th
 *   (`versand|kosten`, `rück|sendungen`, `bestell|nummer`, `transport|schäden`);
 * - a linking -en/-er before a vowel (`kunden|anfrage`, `liefer|adresse`, `steuer|erklärung`);
 * - an -e followed by a vowel (`rücksende|adresse`, `garantie|anspruch`).
 * Every split whose two sides have at least 4 letters and a vowel gives both sides (the Fugen-s
 * dropped from the left one), except a right side that is only a suffix (`möglich|keiten`). Splits
 * a lexicon would refuse still happen (`tran|sportschäden` next to `transport|schäden`,
 * `kaufver|trags`), and compounds without such a signal are missed (`telefon|nummer`,
 * `kunden|dienst`, `mahn|gebühren`). Measured in the tests: a compound found gives two parts; a
 * compound-dense German support text gains half its terms, and no word more than four parts.
 */
export function germanCompoundParts(word: string): string[] {
  if (word.length < MIN_COMPOUND_LETTERS || !/^[a-zäöüß]+$/.test(word)) return [];
  const splits: number[] = [];
  const n = word.length;
  let i = 0;
  while (i < n && !VOWELS.has(word[i]!)) i++;
  while (i < n) {
    // The vowel group [i, j), then the consonants [j, next) before the next vowel group.
    let j = i + 1;
    while (j < n && VOWELS.has(word[j]!)) j++;
    // An e before another vowel that does not make one syllable with it: rücksende|adresse.
    for (let k = i + 1; k < j; k++) {
      if (word[k - 1] === 'e' && !E_DIPHTHONGS.has(word[k]!)) splits.push(k);
    }
    let next = j;
    while (next < n && !VOWELS.has(word[next]!)) next++;
    if (next >= n) break;
    let linked = false;
    // A linking s: after a typical noun ending, before a legal onset or a vowel.
    for (let k = j + 1; k <= next; k++) {
      if (word[k - 1] !== 's' || insideDigraph(word, k) || !BEFORE_LINKING_S.test(word.slice(0, k - 1))) continue;
      if (k === next || ONSETS.has(word.slice(k, next))) {
        splits.push(k);
        linked = true;
      }
    }
    // A linking -en or -er before a vowel.
    if (!linked && next - j === 1 && (word[j] === 'n' || word[j] === 'r') && word[j - 1] === 'e') {
      splits.push(next);
      linked = true;
    }
    // Three or more consonant sounds: the longest legal onset goes right.
    if (!linked && consonantCount(word, j, next) >= 3) {
      for (let k = j; k < next; k++) {
        if (!insideDigraph(word, k) && ONSETS.has(word.slice(k, next))) {
          splits.push(k);
          break;
        }
      }
    }
    i = next;
  }
  const parts: string[] = [];
  for (const k of splits.sort((a, b) => a - b)) {
    const right = word.slice(k);
    let left = word.slice(0, k);
    if (left.endsWith('s') && BEFORE_LINKING_S.test(left.slice(0, -1))) left = left.slice(0, -1);
    if (right.length < MIN_PART_LETTERS || left.length < MIN_PART_LETTERS) continue;
    if (!hasVowel(right) || !hasVowel(left) || SUFFIX_PART.test(right)) continue;
    if (!parts.includes(left)) parts.push(left);
    if (!parts.includes(right)) parts.push(right);
  }
  return parts;
}
