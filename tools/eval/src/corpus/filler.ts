/**
 * The shape of a language's filler (tools/eval/corpus/filler-<language>.json): generic support
 * prose plus per-topic sentences, headings, lists and tables.
 */

export interface TopicFiller {
  /** Section headings; `{subject}` is the entry's subject. */
  headings: string[];
  /** Sentences about the topic that state no policy a question asks about. */
  sentences: string[];
  /** Bullet or step items. */
  listItems: string[];
  /** Values for the `{term}` slot. */
  terms: string[];
  /** A table: the generator shows the header and three or more of the rows, in order. */
  table: { headers: string[]; rows: string[][] };
  /** Code or sample blocks. */
  code?: SampleBlock[];
}

export interface LanguageFiller {
  generic: string[];
  genericHeadings: string[];
  genericListItems: string[];
  /** Openers put in front of some sentences, for variety ("In practice, "). */
  openers: string[];
  /** Slot values shared by every topic: {team}, {channel}. */
  slots: Record<string, string[]>;
  /** Sample blocks every topic may use. */
  code: SampleBlock[];
  seeAlso: string;
  intro: string[];
  topics: Record<string, TopicFiller>;
}

/** A fenced block: its info string (`text`, `sh`…) and its body, with slots. */
export interface SampleBlock {
  info: string;
  body: string;
}
