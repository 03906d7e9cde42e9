/**
 * Tuning entry search without a stack per setting. `npm run eval -- --record FILE` keeps, for
 * every question of the three sets (and the unanswerable ones), what the service's searches found
 * (EntryMatches), read with more of each entry than any profile reads; this script ranks them
 * again with `rankEntries`, each profile's reading cut out of the recording, and prints what the
 * evaluation would: recall and MRR, the passage hit rate and the share found at min_relevance 0.5,
 * per question set and language. A few seconds per setting, against minutes for a full run; the
 * shipped setting replayed on a run's recording gives that run's figures (another run's stack
 * can differ by a question or so: Elasticsearch's approximate kNN). docs/search.md ("More of each
 * entry read" and after) was tuned this way.
 *
 *   npm run eval -- --record /tmp/matches.json
 *   node tools/eval/dist/replay.js --in /tmp/matches.json [--semantic JSON] [--lexical JSON]
 *
 * --semantic / --lexical: a JSON object merged over that profile (FusionProfile; `passageChoice`
 * and `meaning` merged one level deeper), e.g. --semantic '{"passageChoice":{"centralityPenalty":0.6}}'.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  LEXICAL,
  passagesReadPerSide,
  questionProfile,
  rankEntries,
  SEMANTIC,
  type EntryMatches,
  type FusionProfile,
  type PassageMatch,
  type PassageReading,
} from '@kb/search';
import { embedQueries, LOCAL_MODEL_LANGUAGES, type WholeEntryBaseline } from './baseline';
import type { Corpus } from './corpus/generate';
import type { Language } from './corpus/types';
import { passageContains } from './metrics';

/** What a recording reads of each entry: more than any profile does, so that each can be cut out of it. */
const RECORD_READING: PassageReading = {
  sentencesPerHit: 60,
  keywordPassagesPerHit: 15,
  vectorPassagesPerHit: 15,
  passageTerms: true,
};
const RECORD_PASSAGES = 15;
/** Passages a hit carries in the evaluation. */
export const PASSAGES = 3;

type QuestionSet = 'paraphrase' | 'topical' | 'own words' | 'unanswerable';

export interface Recording {
  entries: { slug: string; id: string; content: string }[];
  questions: {
    set: QuestionSet;
    id: string;
    language: Language;
    text: string;
    entrySlug?: string;
    key?: string;
    matches: EntryMatches;
  }[];
}

/** Records every question's EntryMatches from the evaluation's stack into `file`. */
export async function record(
  file: string,
  corpus: Corpus,
  ids: Map<string, string>,
  baseline: WholeEntryBaseline,
  model: { name: string; dims: number; dir: string },
): Promise<number> {
  const asked: { set: QuestionSet; q: Corpus['questions'][number]; text: string }[] = [];
  for (const q of corpus.questions) {
    if (!q.entrySlug) {
      asked.push({ set: 'unanswerable', q, text: q.question });
      continue;
    }
    asked.push({ set: 'paraphrase', q, text: q.question });
    if (q.topical) asked.push({ set: 'topical', q, text: q.topical });
    if (q.key) asked.push({ set: 'own words', q, text: q.key });
  }
  const vectors = await embedQueries(
    model,
    asked.map((a) => a.text),
  );
  const recording: Recording = {
    entries: corpus.entries.map((e) => ({ slug: e.slug, id: ids.get(e.slug) ?? '', content: e.content })),
    questions: [],
  };
  for (const [i, a] of asked.entries()) {
    const matches = await baseline.matches(a.text.trim(), a.q.language, vectors[i]!, RECORD_READING, RECORD_PASSAGES);
    recording.questions.push({
      set: a.set,
      id: a.q.id,
      language: a.q.language,
      text: a.text,
      ...(a.q.entrySlug ? { entrySlug: a.q.entrySlug, key: a.q.key } : {}),
      matches,
    });
  }
  writeFileSync(file, JSON.stringify(recording));
  return recording.questions.length;
}

const best = (passages: PassageMatch[], n: number) => [...passages].sort((a, b) => b.score - a.score).slice(0, n);

/** The recording as a search reading `reading` of each entry (and the passages asked for, two more per side) would have found it. */
export function asRead(m: EntryMatches, reading: PassageReading): EntryMatches {
  const perSide = (atLeast: number) => passagesReadPerSide(PASSAGES + 2, atLeast);
  return {
    ...m,
    keyword: m.keyword.map((h) => ({ ...h, passages: best(h.passages, perSide(reading.keywordPassagesPerHit)) })),
    vector: m.vector.map((h) => ({ ...h, passages: best(h.passages, perSide(reading.vectorPassagesPerHit)) })),
    ...(m.sentence
      ? { sentence: m.sentence.map((h) => ({ ...h, passages: best(h.passages, reading.sentencesPerHit) })) }
      : {}),
  };
}

function merged(profile: FusionProfile, over: Partial<FusionProfile>): FusionProfile {
  return {
    ...profile,
    ...over,
    meaning: { ...profile.meaning, ...over.meaning },
    passageChoice: { ...profile.passageChoice, ...over.passageChoice },
    relevance: { ...profile.relevance, ...over.relevance },
  };
}

interface Tally {
  n: number;
  r1: number;
  r5: number;
  mrr: number;
  inTop5: number;
  passageHits: number;
  /** Answerable: its entry at relevance ≥ 0.5; unanswerable: no hit at ≥ 0.5. */
  atHalf: number;
}

/** Per question set and language, the figures the evaluation reports, from the recording ranked with these profiles. */
export function replay(recording: Recording, semantic: FusionProfile, lexical: FusionProfile): Map<string, Tally> {
  const entries = new Map(recording.entries.map((e) => [e.slug, e]));
  const tallies = new Map<string, Tally>();
  for (const q of recording.questions) {
    const shipped = questionProfile(q.text, q.language, LOCAL_MODEL_LANGUAGES);
    const profile = shipped === LEXICAL ? lexical : semantic;
    const hits = rankEntries(asRead(q.matches, profile.passageChoice), 10, PASSAGES, profile);
    const key = `${q.set}, ${q.language}`;
    let t = tallies.get(key);
    if (!t) tallies.set(key, (t = { n: 0, r1: 0, r5: 0, mrr: 0, inTop5: 0, passageHits: 0, atHalf: 0 }));
    t.n++;
    const entry = q.entrySlug ? entries.get(q.entrySlug) : undefined;
    if (!entry) {
      if (!hits.some((h) => h.relevance >= 0.5)) t.atHalf++;
      continue;
    }
    const rank = hits.findIndex((h) => h.id === entry.id) + 1;
    if (rank === 0) continue;
    const hit = hits[rank - 1]!;
    if (rank === 1) t.r1++;
    if (rank <= 5) {
      t.r5++;
      t.inTop5++;
      const passages = hit.passages.map((p) => ({ text: entry.content.slice(p.start, p.end) }));
      if (passageContains(passages, q.key!)) t.passageHits++;
    }
    t.mrr += 1 / rank;
    if (hit.relevance >= 0.5) t.atHalf++;
  }
  return tallies;
}

function main(): void {
  const { values } = parseArgs({
    options: { in: { type: 'string' }, semantic: { type: 'string' }, lexical: { type: 'string' } },
    strict: true,
  });
  if (!values.in) throw new Error('--in FILE: a recording of `npm run eval -- --record FILE`');
  const recording = JSON.parse(readFileSync(values.in, 'utf8')) as Recording;
  const over = (json: string | undefined) => (json ? (JSON.parse(json) as Partial<FusionProfile>) : {});
  const tallies = replay(recording, merged(SEMANTIC, over(values.semantic)), merged(LEXICAL, over(values.lexical)));
  const f = (x: number, n: number) => (n > 0 ? (x / n).toFixed(3) : '–');
  const rows = [...tallies].sort(([a], [b]) => a.localeCompare(b));
  process.stdout.write('| questions | n | R@1 | R@5 | MRR@10 | passage hit rate | at min_relevance 0.5 |\n');
  process.stdout.write('| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n');
  for (const [key, t] of rows) {
    const answerable = !key.startsWith('unanswerable');
    process.stdout.write(
      `| ${key} | ${t.n} | ${answerable ? f(t.r1, t.n) : '–'} | ${answerable ? f(t.r5, t.n) : '–'} | ` +
        `${answerable ? f(t.mrr, t.n) : '–'} | ${answerable ? f(t.passageHits, t.inTop5) : '–'} | ` +
        `${f(t.atHalf, t.n)} ${answerable ? 'found' : 'no hit'} |\n`,
    );
  }
}

if (require.main === module) {
  try {
    main();
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  }
}
