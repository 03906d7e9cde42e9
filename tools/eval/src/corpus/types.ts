/** The hand-written part of the corpus: entries with three planted facts each, and their questions. */

export type Language = 'en' | 'de';
export type Position = 'start' | 'middle' | 'end';
export const POSITIONS: readonly Position[] = ['start', 'middle', 'end'];

/**
 * A fact planted in an entry: `text` is the sentence as it appears in the content, `key` a span
 * of it that a passage must contain to count as carrying the fact, `question` what a user would
 * ask, worded differently (it shares at most two content words with `text`).
 */
export interface Fact {
  text: string;
  key: string;
  question: string;
}

export interface EntrySpec {
  /** Stable slug, used as the question ids' prefix. */
  slug: string;
  language: Language;
  /** The filler topic whose sentence templates fill the entry (see filler-en.ts, filler-de.ts). */
  topic: string;
  title: string;
  /** The noun phrase the filler uses for the entry's own subject ("express shipping"). */
  subject: string;
  summary: string;
  tags: string[];
  /** The facts planted near the start, in the middle and near the end, in that order. */
  facts: [Fact, Fact, Fact];
}

/** A question no entry answers. */
export interface Unanswerable {
  slug: string;
  language: Language;
  question: string;
}

/** A fact as the data files write it: [sentence, key span, question]. */
export type FactRow = [text: string, key: string, question: string];

/** The entry-writing helper of entries-en.ts and entries-de.ts, for one language. */
export function entriesIn(language: Language) {
  const fact = ([text, key, question]: FactRow): Fact => ({ text, key, question });
  return (
    slug: string,
    topic: string,
    title: string,
    subject: string,
    summary: string,
    facts: [FactRow, FactRow, FactRow],
  ): EntrySpec => ({
    slug,
    language,
    topic,
    title,
    subject,
    summary,
    tags: [topic, subject.replace(/\s+/g, '-').toLowerCase()],
    facts: [fact(facts[0]), fact(facts[1]), fact(facts[2])],
  });
}
