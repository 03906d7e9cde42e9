/**
 * The hand-written part of the corpus, read from tools/eval/corpus/ (see its README): the entries
 * with their planted facts, the topical questions, the filler and the unanswerable questions; and
 * the stop words that counting shared content words leaves out.
 * The files are read where the package lies, not copied into dist/: this module sits two levels
 * below the package in src/corpus/ and in dist/corpus/ alike.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { LanguageFiller } from './filler';
import { POSITIONS, type EntrySpec, type Fact, type Language, type Position, type Unanswerable } from './types';

const CORPUS_DIR = path.join(__dirname, '..', '..', 'corpus');

function readCorpusFile<T>(file: string): T {
  return JSON.parse(readFileSync(path.join(CORPUS_DIR, file), 'utf8')) as T;
}

/** An entry as entries-<language>.json writes it: its facts by where they are planted. */
interface EntryRecord {
  slug: string;
  topic: string;
  title: string;
  subject: string;
  summary: string;
  facts: Record<Position, Fact>;
}

function readEntries(file: string): EntrySpec[] {
  const { language, entries } = readCorpusFile<{ language: Language; entries: EntryRecord[] }>(file);
  return entries.map((e) => ({
    slug: e.slug,
    language,
    topic: e.topic,
    title: e.title,
    subject: e.subject,
    summary: e.summary,
    tags: [e.topic, e.subject.replace(/\s+/g, '-').toLowerCase()],
    facts: [e.facts.start, e.facts.middle, e.facts.end],
  }));
}

export const ENGLISH_ENTRIES: EntrySpec[] = readEntries('entries-en.json');
export const GERMAN_ENTRIES: EntrySpec[] = readEntries('entries-de.json');

export const ENGLISH_FILLER: LanguageFiller = readCorpusFile('filler-en.json');
export const GERMAN_FILLER: LanguageFiller = readCorpusFile('filler-de.json');

/** The topical question of each planted fact, by `${entry slug}#${position}`. */
export const TOPICAL_QUESTIONS: ReadonlyMap<string, string> = new Map(
  Object.entries(readCorpusFile<Record<string, Record<Position, string>>>('questions-topical.json')).flatMap(
    ([slug, byPosition]) =>
      POSITIONS.map((position): [string, string] => [`${slug}#${position}`, byPosition[position]]),
  ),
);

export const UNANSWERABLE: Unanswerable[] = readCorpusFile('unanswerable.json');

/** English and German stop words, one set: the words content-word counts leave out (text.ts). */
export const STOPWORDS: ReadonlySet<string> = new Set(
  Object.values(readCorpusFile<Record<Language, string[]>>('stopwords.json')).flat(),
);
