/** The corpus's hand-written part (tools/eval/corpus/): entries with three planted facts each, and their questions. */

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
  /** The filler topic whose sentence templates fill the entry (see corpus/filler-en.json, filler-de.json). */
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
