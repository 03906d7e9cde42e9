/**
 * Builds the evaluation corpus from the hand-written entries and the filler templates (the files
 * of tools/eval/corpus/, read by data.ts): the same Markdown on every machine and run (seeded
 * generator, no network), each entry 8-30 KB, with its three facts planted near the start, in the
 * middle and in the last 15%. checkCorpus() verifies every property the scoring relies on.
 */
import {
  ENGLISH_ENTRIES,
  ENGLISH_FILLER,
  GERMAN_ENTRIES,
  GERMAN_FILLER,
  TOPICAL_QUESTIONS,
  UNANSWERABLE,
} from './data';
import type { SampleBlock, TopicFiller } from './filler';
import { normalise, sharedContent } from './text';
import { POSITIONS, type EntrySpec, type Language, type Position } from './types';

export const CORPUS_SEED = 20251124;
/** Content size bounds, in UTF-8 bytes, and the range the generator aims for (in characters). */
export const MIN_BYTES = 8_000;
export const MAX_BYTES = 30_000;
const TARGET_CHARS: [number, number] = [9_000, 22_000];
/** Where each fact may sit, as a share of the content length (checked), and where it is aimed. */
export const POSITION_BOUNDS: Record<Position, [number, number]> = {
  start: [0, 0.15],
  middle: [0.35, 0.65],
  end: [0.85, 1],
};
const POSITION_AIM: Record<Position, [number, number]> = {
  start: [0.02, 0.08],
  middle: [0.45, 0.55],
  end: [0.88, 0.94],
};
/** At most this many content words (crude stems) shared between a fact and its question. */
export const MAX_SHARED_WORDS = 2;

export interface CorpusEntry {
  slug: string;
  language: Language;
  topic: string;
  title: string;
  summary: string;
  tags: string[];
  content: string;
  /** Character offset of each planted fact in `content`, in POSITIONS order. */
  factOffsets: number[];
}

export interface Question {
  id: string;
  language: Language;
  question: string;
  /** The entry that answers it; absent for unanswerable questions. */
  entrySlug?: string;
  position?: Position;
  fact?: string;
  key?: string;
  /** The same fact asked naming its subject (corpus/questions-topical.json); answerable questions only. */
  topical?: string;
}

export interface Corpus {
  entries: CorpusEntry[];
  questions: Question[];
}

/** mulberry32, as the benchmark's catalogue uses. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** The entries to load: all of them, or `count` spread over both languages and every topic. */
export function selectEntries(count?: number): EntrySpec[] {
  const all = [...ENGLISH_ENTRIES, ...GERMAN_ENTRIES];
  if (count === undefined || count >= all.length) return all;
  const english = Math.max(
    1,
    Math.min(ENGLISH_ENTRIES.length, Math.round((count * ENGLISH_ENTRIES.length) / all.length)),
  );
  const german = Math.max(count > 1 ? 1 : 0, count - english);
  return [...roundRobin(ENGLISH_ENTRIES).slice(0, count - german), ...roundRobin(GERMAN_ENTRIES).slice(0, german)];
}

/** Entries ordered first of each topic, then second of each topic, and so on. */
function roundRobin(specs: EntrySpec[]): EntrySpec[] {
  const byTopic = new Map<string, EntrySpec[]>();
  for (const s of specs) byTopic.set(s.topic, [...(byTopic.get(s.topic) ?? []), s]);
  const out: EntrySpec[] = [];
  for (let i = 0; out.length < specs.length; i++) for (const list of byTopic.values()) if (list[i]) out.push(list[i]!);
  return out;
}

export function buildCorpus(options: { entries?: number; seed?: number } = {}): Corpus {
  const seed = options.seed ?? CORPUS_SEED;
  const specs = selectEntries(options.entries);
  const entries = specs.map((spec) =>
    generateEntry(
      spec,
      specs.filter((s) => s.topic === spec.topic && s.slug !== spec.slug),
      seed,
    ),
  );
  const questions: Question[] = [];
  for (const spec of specs)
    spec.facts.forEach((f, i) =>
      questions.push({
        id: `${spec.slug}#${POSITIONS[i]}`,
        language: spec.language,
        question: f.question,
        entrySlug: spec.slug,
        position: POSITIONS[i]!,
        fact: f.text,
        key: f.key,
        topical: TOPICAL_QUESTIONS.get(`${spec.slug}#${POSITIONS[i]}`),
      }),
    );
  for (const u of UNANSWERABLE) questions.push({ id: u.slug, language: u.language, question: u.question });
  return { entries, questions };
}

/** Sentences an opener ("In practice, ") reads well in front of. */
const OPENABLE = /^(Our|The|We|Many|Most|A|An|Unser|Unsere|Die|Der|Das|Wir|Viele) /;

type Block = { kind: 'para'; sentences: string[] } | { kind: 'text'; text: string };

function generateEntry(spec: EntrySpec, siblings: EntrySpec[], seed: number): CorpusEntry {
  const rnd = seededRandom(seed ^ hash(spec.slug));
  const filler = spec.language === 'en' ? ENGLISH_FILLER : GERMAN_FILLER;
  const topic = filler.topics[spec.topic];
  if (!topic) throw new Error(`${spec.slug}: no filler for topic ${spec.topic}`);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  /** Draws without repeats until every item was drawn, then starts a new shuffled round. */
  const bag = <T>(items: readonly T[]) => {
    let pool: T[] = [];
    return (): T => {
      if (pool.length === 0) pool = shuffle([...items], rnd);
      return pool.pop()!;
    };
  };
  const ref = () =>
    `${String.fromCharCode(65 + int(0, 25))}${String.fromCharCode(65 + int(0, 25))}-${int(10000, 99999)}`;
  const fill = (template: string) =>
    template.replace(/\{(\w+)\}/g, (whole, slot: string) => {
      if (slot === 'subject') return spec.subject;
      if (slot === 'term') return pick(topic.terms);
      if (slot === 'ref') return ref();
      const values = filler.slots[slot];
      return values ? pick(values) : whole;
    });
  const topicSentence = bag(topic.sentences);
  const genericSentence = bag(filler.generic);
  const sentence = () => {
    const s = fill(rnd() < 0.5 ? topicSentence() : genericSentence());
    if (rnd() >= 0.15 || !OPENABLE.test(s) || /usual/i.test(s)) return s;
    const opener = pick(filler.openers);
    // German keeps its capitals after the colon; English continues the sentence in lower case.
    return opener.endsWith(': ') ? opener + s : opener + s[0]!.toLowerCase() + s.slice(1);
  };
  const paragraph = (n: number) => ({ kind: 'para' as const, sentences: Array.from({ length: n }, sentence) });
  const heading = bag([...topic.headings, ...filler.genericHeadings]);
  const listItem = bag([...topic.listItems, ...filler.genericListItems]);
  const codeBlocks = [...(topic.code ?? []), ...filler.code];

  const blocks: Block[] = [{ kind: 'para', sentences: [fill(pick(filler.intro)), ...paragraph(int(3, 5)).sentences] }];
  const target = int(...TARGET_CHARS);
  let size = 0;
  let tables = 0;
  let codes = 0;
  const add = (b: Block) => {
    blocks.push(b);
    size += render(b).length + 2;
  };
  size = render(blocks[0]!).length;
  while (size < target) {
    add({ kind: 'text', text: `## ${fill(heading())}` });
    for (let i = int(1, 3); i > 0; i--) add(paragraph(int(4, 7)));
    const r = rnd();
    if (r < 0.35) add(list(int(3, 6), listItem, fill, rnd() < 0.3));
    else if (r < 0.5 && tables < 2) {
      add(table(topic, int(3, topic.table.rows.length)));
      tables++;
    } else if (r < 0.62 && codes < 2) {
      add(code(pick(codeBlocks), fill));
      codes++;
    }
    if (rnd() < 0.25) {
      add({ kind: 'text', text: `### ${fill(heading())}` });
      add(paragraph(int(3, 6)));
    }
    // Every section ends on prose, so a fact can always go near the end of the entry.
    add(paragraph(int(3, 5)));
  }
  if (siblings.length > 0)
    add({
      kind: 'text',
      text: `## ${filler.seeAlso}\n\n${siblings.map((s) => `- ${s.title}`).join('\n')}`,
    });

  plantFacts(spec, blocks, rnd);
  const content = blocks.map(render).join('\n\n');
  return {
    slug: spec.slug,
    language: spec.language,
    topic: spec.topic,
    title: spec.title,
    summary: spec.summary,
    tags: spec.tags,
    content,
    factOffsets: spec.facts.map((f) => content.indexOf(f.text)),
  };
}

function render(b: Block): string {
  return b.kind === 'para' ? b.sentences.join(' ') : b.text;
}

function list(n: number, item: () => string, fill: (t: string) => string, numbered: boolean): Block {
  const drawn = new Set<string>();
  for (let attempts = 0; drawn.size < n && attempts < 4 * n; attempts++) drawn.add(item());
  const items = [...drawn].map(fill);
  return { kind: 'text', text: items.map((t, i) => `${numbered ? `${i + 1}.` : '-'} ${t}`).join('\n') };
}

function table(topic: TopicFiller, rows: number): Block {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return {
    kind: 'text',
    text: [
      line(topic.table.headers),
      line(topic.table.headers.map(() => '---')),
      ...topic.table.rows.slice(0, rows).map(line),
    ].join('\n'),
  };
}

function code({ info, body }: SampleBlock, fill: (t: string) => string): Block {
  return { kind: 'text', text: `\`\`\`${info}\n${fill(body)}\n\`\`\`` };
}

function shuffle<T>(xs: T[], rnd: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}

/**
 * Puts each fact sentence between two sentences of a paragraph, at the sentence boundary nearest
 * to a point drawn from its position's aim that lies inside the position's bounds. Last fact
 * first, so the offsets computed for the earlier ones stay valid.
 */
function plantFacts(spec: EntrySpec, blocks: Block[], rnd: () => number): void {
  for (let i = POSITIONS.length - 1; i >= 0; i--) {
    const position = POSITIONS[i]!;
    const boundaries: { block: number; index: number; offset: number }[] = [];
    let offset = 0;
    blocks.forEach((b, bi) => {
      if (b.kind === 'para') {
        let inner = offset;
        for (let si = 0; si <= b.sentences.length; si++) {
          boundaries.push({ block: bi, index: si, offset: inner });
          inner += (b.sentences[si]?.length ?? 0) + 1;
        }
      }
      offset += render(b).length + 2;
    });
    const total = offset - 2;
    const [lo, hi] = POSITION_AIM[position];
    const aim = (lo + rnd() * (hi - lo)) * total;
    const [min, max] = POSITION_BOUNDS[position];
    const fits = boundaries.filter((b) => b.offset >= min * total && b.offset <= max * total - 200);
    const best = (fits.length ? fits : boundaries).reduce((a, b) =>
      Math.abs(b.offset - aim) < Math.abs(a.offset - aim) ? b : a,
    );
    (blocks[best.block] as { sentences: string[] }).sentences.splice(best.index, 0, spec.facts[i]!.text);
  }
}

/** Every property the scoring relies on; an empty list when the corpus is sound. */
export function checkCorpus(corpus: Corpus): string[] {
  const problems: string[] = [];
  const slugs = new Set<string>();
  const normalised = corpus.entries.map((e) => normalise([e.title, e.summary, e.content].join('\n')));
  for (const e of corpus.entries) {
    if (slugs.has(e.slug)) problems.push(`${e.slug}: duplicate slug`);
    slugs.add(e.slug);
    const bytes = Buffer.byteLength(e.content, 'utf8');
    if (bytes < MIN_BYTES || bytes > MAX_BYTES)
      problems.push(`${e.slug}: ${bytes} bytes, outside ${MIN_BYTES}-${MAX_BYTES}`);
    e.factOffsets.forEach((offset, i) => {
      const position = POSITIONS[i]!;
      const [min, max] = POSITION_BOUNDS[position];
      const share = offset / e.content.length;
      if (offset < 0) problems.push(`${e.slug}: ${position} fact missing from the content`);
      else if (share < min || share > max)
        problems.push(
          `${e.slug}: ${position} fact at ${(share * 100).toFixed(1)}%, outside ${min * 100}-${max * 100}%`,
        );
    });
  }
  const ids = new Set<string>();
  for (const q of corpus.questions) {
    if (ids.has(q.id)) problems.push(`${q.id}: duplicate question id`);
    ids.add(q.id);
    if (!q.entrySlug || !q.fact || !q.key) continue;
    if (!q.fact.includes(q.key)) problems.push(`${q.id}: key is not part of the fact`);
    const shared = sharedContent(q.question, q.fact);
    if (shared.length > MAX_SHARED_WORDS)
      problems.push(`${q.id}: question shares ${shared.length} content words with its fact (${shared.join(', ')})`);
    const key = normalise(q.key);
    if (!q.topical) problems.push(`${q.id}: no topical question`);
    else if (normalise(q.topical).includes(key)) problems.push(`${q.id}: the topical question contains the key span`);
    corpus.entries.forEach((e, i) => {
      const count = normalised[i]!.split(key).length - 1;
      if (e.slug === q.entrySlug && count !== 1) problems.push(`${q.id}: key occurs ${count} times in its own entry`);
      if (e.slug !== q.entrySlug && count > 0) problems.push(`${q.id}: key also occurs in ${e.slug}`);
    });
  }
  return problems;
}

/** Figures about the corpus itself, for the report. */
export function corpusStats(corpus: Corpus) {
  const bytes = corpus.entries.map((e) => Buffer.byteLength(e.content, 'utf8'));
  const answerable = corpus.questions.filter((q) => q.fact);
  const shared = answerable.map((q) => sharedContent(q.question, q.fact!).length);
  const sharedTopical = answerable.map((q) => sharedContent(q.topical ?? '', q.fact!).length);
  const byLanguage = (l: Language) => corpus.entries.filter((e) => e.language === l).length;
  return {
    seed: CORPUS_SEED,
    entries: corpus.entries.length,
    entriesByLanguage: { en: byLanguage('en'), de: byLanguage('de') },
    topics: [...new Set(corpus.entries.map((e) => `${e.language}:${e.topic}`))].length,
    bytes: {
      min: Math.min(...bytes),
      max: Math.max(...bytes),
      mean: Math.round(bytes.reduce((a, b) => a + b, 0) / bytes.length),
    },
    questions: corpus.questions.length,
    answerable: answerable.length,
    unanswerable: corpus.questions.length - answerable.length,
    sharedContentWords: {
      mean: shared.reduce((a, b) => a + b, 0) / Math.max(1, shared.length),
      max: Math.max(0, ...shared),
      histogram: [0, 1, 2].map((n) => shared.filter((s) => s === n).length),
    },
    /** The same for the questions that name their subject (corpus/questions-topical.json). */
    sharedContentWordsTopical: {
      mean: sharedTopical.reduce((a, b) => a + b, 0) / Math.max(1, sharedTopical.length),
      max: Math.max(0, ...sharedTopical),
    },
  };
}
