import { markTerms } from './text-analysis';

/**
 * Passages of a long Markdown knowledge entry, for passage-level search: each passage is an exact
 * slice of the entry (`text === content.slice(start, end)`, offsets in UTF-16 code units) and carries
 * the path of the headings it sits under.
 *
 * Why a line-based block scanner and not a Markdown parser from npm: the parsers that give exact
 * source offsets (micromark / mdast-util-from-markdown, remark) are ESM-only and do not load from
 * this CommonJS build and ts-jest; markdown-it (CommonJS) maps blocks only to line numbers of a
 * source it normalises first (a lone CR becomes a line break), and commonmark.js reports line and
 * column positions. Passages only need block boundaries, which are line boundaries, and
 * must degrade gracefully on content that is not Markdown at all (one giant line of plain text),
 * so a small scanner of the CommonMark/GFM block starts is simpler, exact and fast (linear time,
 * a few milliseconds for 100,000 characters). It knows: ATX and setext headings, fenced code
 * (blank lines and `#` lines inside stay code), indented code, list items (continuation lines,
 * lazy lines, nested items as blocks of their own), block quotes, GFM tables, thematic breaks and
 * paragraphs. It does not need to be a full CommonMark parser: a misread block only moves a
 * cut, never breaks the offsets, the size limit or the coverage of the content.
 */

/** No passage is longer than this (characters, UTF-16 code units). */
export const MAX_PASSAGE_CHARS = 1200;

export interface Passage {
  /** Offset of the passage's first character in the content. */
  start: number;
  /** Offset after its last character. */
  end: number;
  /** `content.slice(start, end)`: no whitespace at either edge. */
  text: string;
  /** The enclosing headings, outermost first (e.g. ['Shipping', 'Returns']); [] before the first heading. */
  headings: string[];
}

export interface SplitOptions {
  /** The size to aim at (default 800 characters, some 100-200 words). */
  targetChars?: number;
  /** The hard limit (default MAX_PASSAGE_CHARS; at least 2). */
  maxChars?: number;
  /** How far back a passage may start into its predecessor of the same section (default 150). */
  overlapChars?: number;
}

const DEFAULT_TARGET_CHARS = 800;
const DEFAULT_OVERLAP_CHARS = 150;
/** A section's last passage shorter than this joins the one before it when the limit allows. */
const TINY_PASSAGE_CHARS = 200;
/** A setext heading is a whole paragraph; its title in `headings` is cut to this length. */
const MAX_HEADING_TITLE_CHARS = 200;

/** Splits `content` into passages of one section each, in order; whitespace-only content gives []. */
export function splitPassages(content: string, options: SplitOptions = {}): Passage[] {
  // At least 2: a surrogate pair is never split.
  const maxChars = Math.max(2, Math.floor(options.maxChars ?? MAX_PASSAGE_CHARS));
  const targetChars = Math.min(maxChars, Math.max(1, Math.floor(options.targetChars ?? DEFAULT_TARGET_CHARS)));
  const overlapChars = Math.max(0, Math.floor(options.overlapChars ?? DEFAULT_OVERLAP_CHARS));
  const limits: Limits = { targetChars, maxChars, overlapChars };

  const lines = scanLines(content);
  const blocks = scanBlocks(content, lines);
  const passages: Passage[] = [];
  for (const section of sections(blocks)) {
    const headings = section.path.filter((title) => title !== '');
    for (const [start, end] of packSection(content, section.blocks, limits)) {
      passages.push({ start, end, text: content.slice(start, end), headings: [...headings] });
    }
  }
  return passages;
}

interface Limits {
  targetChars: number;
  maxChars: number;
  overlapChars: number;
}

// ---------------------------------------------------------------------------------------------
// Characters

/** JavaScript's `\s`, by code unit. */
function isWs(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 160) return false;
  return (
    code === 160 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

function isLineBreak(code: number): boolean {
  return code === 10 || code === 13;
}

/** The offset after the last non-whitespace character before `end` (not before `floor`). */
function trimBack(content: string, floor: number, end: number): number {
  while (end > floor && isWs(content.charCodeAt(end - 1))) end--;
  return end;
}

/** The offset of the first non-whitespace character at or after `start` (at most `ceil`). */
function skipWs(content: string, start: number, ceil: number): number {
  while (start < ceil && isWs(content.charCodeAt(start))) start++;
  return start;
}

// ---------------------------------------------------------------------------------------------
// Lines

interface Line {
  /** Offset of the line's first character. */
  start: number;
  /** Offset of its terminator (CRLF, LF or a lone CR), or the content's end. */
  end: number;
  /** Offset after the leading spaces and tabs. */
  lead: number;
  /** Column of `lead` (tabs to the next multiple of 4). */
  indent: number;
  /** Offset after the last non-whitespace character; -1 when the line is blank. */
  last: number;
}

function scanLines(content: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  const length = content.length;
  while (start <= length) {
    let end = start;
    while (end < length && !isLineBreak(content.charCodeAt(end))) end++;
    let lead = start;
    let indent = 0;
    for (; lead < end; lead++) {
      const code = content.charCodeAt(lead);
      if (code === 32) indent++;
      else if (code === 9) indent += 4 - (indent % 4);
      else if (code !== 0xfeff || lead !== 0) break;
    }
    const last = trimBack(content, lead, end);
    lines.push({ start, end, lead, indent, last: skipWs(content, lead, last) < last ? last : -1 });
    if (end >= length) break;
    start = content.charCodeAt(end) === 13 && content.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
    if (start === length) break;
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------
// Blocks

type BlockKind = 'heading' | 'paragraph' | 'code' | 'list' | 'quote' | 'table' | 'rule';

interface Block {
  kind: BlockKind;
  /** Its lines, first and last non-blank one (indexes into the lines). */
  firstLine: number;
  lastLine: number;
  /** Offsets of its first and after its last non-whitespace character. */
  start: number;
  end: number;
  /** Headings: 1-6 and the title. */
  level?: number;
  title?: string;
}

interface OpenBlock {
  kind: BlockKind;
  firstLine: number;
  lastLine: number;
  /** List items: the column their content starts at. */
  contentIndent: number;
  level?: number;
}

const ATX_HEADING = /^(#{1,6})(?:[ \t]|$)/;
const SETEXT_UNDERLINE = /^(?:=+|-+)[ \t]*$/;
const THEMATIC_BREAK = /^(?:(?:-[ \t]*){3,}|(?:_[ \t]*){3,}|(?:\*[ \t]*){3,})$/;
const FENCE_OPEN = /^(?:(`{3,})[^`]*|(~{3,}).*)$/;
const FENCE_CLOSE = /^(`{3,}|~{3,})[ \t]*$/;
const LIST_MARKER = /^(?:[-+*]|\d{1,9}[.)])(?=[ \t]|$)([ \t]*)/;
const TABLE_DELIMITER = /^\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;

function lineText(content: string, line: Line): string {
  return content.slice(line.lead, line.end);
}

/** Whether a line (at most 3 columns indented) starts a block that interrupts a paragraph. */
function startsBlock(text: string): boolean {
  return (
    ATX_HEADING.test(text) ||
    THEMATIC_BREAK.test(text) ||
    FENCE_OPEN.test(text) ||
    LIST_MARKER.test(text) ||
    text.startsWith('>')
  );
}

function scanBlocks(content: string, lines: Line[]): Block[] {
  const blocks: Block[] = [];
  let open: OpenBlock | null = null;
  let fence: { marker: string; length: number } | null = null;
  let afterBlank = false;

  const finish = (block: OpenBlock, title?: string): Block => {
    const first = lines[block.firstLine]!;
    const last = lines[block.lastLine]!;
    const done: Block = {
      kind: block.kind,
      firstLine: block.firstLine,
      lastLine: block.lastLine,
      start: skipWs(content, first.lead, first.end),
      end: last.last,
    };
    if (block.level !== undefined) done.level = block.level;
    if (title !== undefined) done.title = title;
    return done;
  };
  const close = () => {
    if (open) blocks.push(finish(open));
    open = null;
  };
  const openFence = (text: string): boolean => {
    const match = FENCE_OPEN.exec(text);
    if (!match) return false;
    const marker = match[1] ?? match[2] ?? '';
    fence = { marker: marker[0]!, length: marker.length };
    return true;
  };
  const startList = (index: number, line: Line, text: string) => {
    const match = LIST_MARKER.exec(text)!;
    const spaces = match[1]!.length;
    const markerLength = match[0].length - spaces;
    const gap = spaces === 0 || spaces > 4 || line.lead + match[0].length === line.end ? 1 : spaces;
    open = { kind: 'list', firstLine: index, lastLine: index, contentIndent: line.indent + markerLength + gap };
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const blank = line.last < 0;
    const current = open as OpenBlock | null;

    if (fence && current) {
      // Inside fenced code (its own block, or inside a list item): nothing here starts a block.
      if (!blank) {
        current.lastLine = i;
        const close = FENCE_CLOSE.exec(lineText(content, line));
        const { marker, length } = fence as { marker: string; length: number };
        if (close && close[1]![0] === marker && close[1]!.length >= length) fence = null;
      }
      continue;
    }
    if (blank) {
      afterBlank = true;
      if (current && current.kind !== 'list' && current.kind !== 'code') close();
      continue;
    }
    const text = lineText(content, line);
    const indent = line.indent;
    const wasBlank = afterBlank;
    afterBlank = false;

    if (current?.kind === 'list') {
      if (indent >= current.contentIndent) {
        if (LIST_MARKER.test(text) && indent < current.contentIndent + 4) {
          // A nested item: a block of its own (a finer cut point).
          close();
          startList(i, line, text);
        } else {
          current.lastLine = i;
          openFence(text);
        }
        continue;
      }
      if (!wasBlank && !(indent <= 3 && startsBlock(text))) {
        current.lastLine = i; // lazy continuation of the item's paragraph
        continue;
      }
      if (indent > 3 && LIST_MARKER.test(text)) {
        close();
        startList(i, line, text);
        continue;
      }
    }
    if (current?.kind === 'code' && indent >= 4) {
      current.lastLine = i;
      continue;
    }
    const continuesParagraph = !wasBlank && (current?.kind === 'paragraph' || current?.kind === 'quote');
    if (indent >= 4) {
      if (continuesParagraph || (current?.kind === 'table' && !wasBlank)) {
        current!.lastLine = i;
      } else {
        close();
        open = { kind: 'code', firstLine: i, lastLine: i, contentIndent: 0 };
      }
      continue;
    }
    const atx = ATX_HEADING.exec(text);
    if (atx) {
      close();
      blocks.push(
        finish({ kind: 'heading', firstLine: i, lastLine: i, contentIndent: 0, level: atx[1]!.length }, atxTitle(text)),
      );
      continue;
    }
    if (current?.kind === 'paragraph' && !wasBlank && SETEXT_UNDERLINE.test(text)) {
      const title = setextTitle(content, lines, current.firstLine, current.lastLine);
      blocks.push(finish({ ...current, kind: 'heading', lastLine: i, level: text.startsWith('=') ? 1 : 2 }, title));
      open = null;
      continue;
    }
    if (THEMATIC_BREAK.test(text)) {
      close();
      blocks.push(finish({ kind: 'rule', firstLine: i, lastLine: i, contentIndent: 0 }));
      continue;
    }
    if (openFence(text)) {
      close();
      open = { kind: 'code', firstLine: i, lastLine: i, contentIndent: 0 };
      continue;
    }
    if (LIST_MARKER.test(text)) {
      close();
      startList(i, line, text);
      continue;
    }
    if (text.startsWith('>')) {
      if (current?.kind === 'quote' && !wasBlank) current.lastLine = i;
      else {
        close();
        open = { kind: 'quote', firstLine: i, lastLine: i, contentIndent: 0 };
      }
      continue;
    }
    const next = lines[i + 1];
    if (text.includes('|') && next && next.last >= 0 && next.indent <= 3) {
      const delimiter = lineText(content, next);
      if (delimiter.includes('|') && TABLE_DELIMITER.test(delimiter)) {
        close();
        open = { kind: 'table', firstLine: i, lastLine: i + 1, contentIndent: 0 };
        i++;
        continue;
      }
    }
    if (current && !wasBlank && (continuesParagraph || current.kind === 'table')) {
      current.lastLine = i;
      continue;
    }
    close();
    open = { kind: 'paragraph', firstLine: i, lastLine: i, contentIndent: 0 };
  }
  close();
  return blocks;
}

/** `## Returns ##` → 'Returns' (the closing sequence counts only after a space or alone). */
function atxTitle(text: string): string {
  let title = text.replace(/^#{1,6}/, '').trim();
  let hashes = title.length;
  while (hashes > 0 && title.charCodeAt(hashes - 1) === 35) hashes--;
  if (hashes === 0) title = '';
  else if (hashes < title.length && (title[hashes - 1] === ' ' || title[hashes - 1] === '\t')) {
    title = title.slice(0, hashes).trim();
  }
  return capTitle(title);
}

function setextTitle(content: string, lines: Line[], first: number, last: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = first; i <= last && length <= MAX_HEADING_TITLE_CHARS; i++) {
    const line = lines[i]!;
    if (line.last < 0) continue;
    const part = content.slice(line.lead, line.last).trim();
    parts.push(part);
    length += part.length + 1;
  }
  return capTitle(parts.join(' '));
}

/** Long titles (a setext "heading" that is a whole paragraph) are cut at a word, within the cap. */
function capTitle(title: string): string {
  const collapsed = title.length > MAX_HEADING_TITLE_CHARS * 4 ? title.slice(0, MAX_HEADING_TITLE_CHARS * 4) : title;
  const clean = collapsed.replace(/\s+/g, ' ').trim();
  if (clean.length <= MAX_HEADING_TITLE_CHARS) return clean;
  let cut = clean.lastIndexOf(' ', MAX_HEADING_TITLE_CHARS);
  if (cut <= 0) {
    cut = MAX_HEADING_TITLE_CHARS;
    const code = clean.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut--;
  }
  return clean.slice(0, cut);
}

// ---------------------------------------------------------------------------------------------
// Sections

interface Section {
  /** Titles of the enclosing headings, outermost first (empty titles included, filtered later). */
  path: string[];
  /** The section's own heading level (0 before the first heading). */
  level: number;
  blocks: Block[];
}

/**
 * The blocks grouped by heading. A section that is only headings (`# Shipping` right before
 * `## Returns`) has nothing to say on its own: its heading lines go into the first passage of the
 * subsection that follows (whose path names both).
 */
function sections(blocks: Block[]): Section[] {
  const all: Section[] = [];
  const stack: { level: number; title: string }[] = [];
  let current: Section = { path: [], level: 0, blocks: [] };
  for (const block of blocks) {
    if (block.kind === 'heading') {
      if (current.blocks.length > 0) all.push(current);
      const level = block.level ?? 1;
      while (stack.length > 0 && stack[stack.length - 1]!.level >= level) stack.pop();
      stack.push({ level, title: block.title ?? '' });
      current = { path: stack.map((entry) => entry.title), level, blocks: [block] };
    } else {
      current.blocks.push(block);
    }
  }
  if (current.blocks.length > 0) all.push(current);

  const merged: Section[] = [];
  let carried: Block[] = [];
  for (let i = 0; i < all.length; i++) {
    const section = all[i]!;
    const blocksHere = carried.length > 0 ? [...carried, ...section.blocks] : section.blocks;
    carried = [];
    const next = all[i + 1];
    const onlyHeadings = blocksHere.every((block) => block.kind === 'heading');
    if (onlyHeadings && next && next.level > section.level && section.level > 0) {
      carried = blocksHere;
      continue;
    }
    merged.push({ ...section, blocks: blocksHere });
  }
  return merged;
}

// ---------------------------------------------------------------------------------------------
// Packing

type Range = [number, number];

/** The passages of one section: blocks packed to about the target, long blocks cut, then overlap. */
function packSection(content: string, blocks: Block[], limits: Limits): Range[] {
  const { targetChars, maxChars } = limits;
  const units: Range[] = [];
  for (const block of blocks) {
    if (block.end - block.start <= maxChars) units.push([block.start, block.end]);
    else units.push(...splitLongBlock(content, block, limits));
  }

  const packed: Range[] = [];
  let start = -1;
  let end = -1;
  for (const [unitStart, unitEnd] of units) {
    if (start < 0) {
      start = unitStart;
      end = unitEnd;
      continue;
    }
    const joined = unitEnd - start;
    if (joined <= targetChars || (joined <= maxChars && end - start < targetChars / 2)) {
      end = unitEnd;
      continue;
    }
    packed.push([start, end]);
    start = unitStart;
    end = unitEnd;
  }
  if (start >= 0) packed.push([start, end]);

  // A tiny last passage joins the one before it.
  const tiny = Math.min(TINY_PASSAGE_CHARS, Math.floor(targetChars / 2));
  if (packed.length >= 2) {
    const last = packed[packed.length - 1]!;
    const before = packed[packed.length - 2]!;
    if (last[1] - last[0] < tiny && last[1] - before[0] <= maxChars) {
      before[1] = last[1];
      packed.pop();
    }
  }

  // Overlap: a passage after another of the same section starts a little earlier, at a sentence or
  // line start, so that what straddles the cut is whole in one of the two.
  if (limits.overlapChars > 0) {
    for (let i = packed.length - 1; i >= 1; i--) {
      const passage = packed[i]!;
      const from = Math.max(passage[0] - limits.overlapChars, packed[i - 1]![0] + 1, passage[1] - maxChars);
      for (let p = from; p < passage[0]; p++) {
        if (isSentenceStart(content, p) || isLineStart(content, p)) {
          passage[0] = p;
          break;
        }
      }
    }
  }
  return packed;
}

/** A non-whitespace character that only spaces or tabs separate from a line break (or the start). */
function isLineStart(content: string, p: number): boolean {
  if (isWs(content.charCodeAt(p))) return false;
  let q = p - 1;
  while (q >= 0 && (content.charCodeAt(q) === 32 || content.charCodeAt(q) === 9)) q--;
  return q < 0 || isLineBreak(content.charCodeAt(q));
}

const SENTENCE_END = new Set(['.', '!', '?', '…', '。', '！', '？']);
const CLOSERS = new Set(['"', "'", ')', ']', '»', '«', '”', '’', '*', '_']);

/**
 * The first character of a sentence: after whitespace that follows `.`, `!`, `?` or `…` (and any
 * closing quotes or brackets), and not a lower-case letter (so `e.g. this` is one sentence).
 */
function isSentenceStart(content: string, p: number): boolean {
  const code = content.charCodeAt(p);
  if (Number.isNaN(code) || isWs(code) || p === 0 || !isWs(content.charCodeAt(p - 1))) return false;
  const char = content[p]!;
  if (char !== char.toUpperCase() && char === char.toLowerCase()) return false;
  let q = p - 1;
  while (q >= 0 && isWs(content.charCodeAt(q))) q--;
  while (q >= 0 && CLOSERS.has(content[q]!)) q--;
  return q >= 0 && SENTENCE_END.has(content[q]!);
}

type CutKind = 'para' | 'sentence' | 'line' | 'space';

const CUT_PREFERENCE: Record<BlockKind, CutKind[]> = {
  code: ['para', 'line', 'space'],
  table: ['line', 'space'],
  heading: ['para', 'sentence', 'line', 'space'],
  paragraph: ['para', 'sentence', 'line', 'space'],
  list: ['para', 'sentence', 'line', 'space'],
  quote: ['para', 'sentence', 'line', 'space'],
  rule: ['para', 'sentence', 'line', 'space'],
};

/** Whether the line before the one that `lineStart` begins is blank (or a bare `>` of a quote). */
function followsBlankLine(content: string, lineStart: number): boolean {
  let q = lineStart - 1;
  while (q >= 0 && (content.charCodeAt(q) === 32 || content.charCodeAt(q) === 9)) q--;
  // q is on the line break ending the previous line (CRLF: its LF).
  if (q < 0) return false;
  if (content.charCodeAt(q) === 10 && content.charCodeAt(q - 1) === 13) q--;
  q--;
  let seenQuote = false;
  for (; q >= 0; q--) {
    const code = content.charCodeAt(q);
    if (isLineBreak(code)) return true;
    if (code === 62 && !seenQuote)
      seenQuote = true; // '>'
    else if (!isWs(code)) return false;
  }
  return true;
}

/**
 * Cuts a block longer than maxChars into pieces of about the same size (no more than the target,
 * where the text allows), at the best boundary near the aim: a blank line, then a sentence end, then a
 * line break, then whitespace; failing all, a hard cut that never splits a surrogate pair.
 */
function splitLongBlock(content: string, block: Block, limits: Limits): Range[] {
  const { targetChars, maxChars } = limits;
  const preference = CUT_PREFERENCE[block.kind];
  const pieces: Range[] = [];
  let pos = block.start;
  const end = block.end;
  while (end - pos > maxChars) {
    const count = Math.ceil((end - pos) / targetChars);
    const aim = pos + Math.round((end - pos) / count);
    const lo = pos + Math.max(1, Math.floor((aim - pos) / 2));
    const hi = pos + maxChars;
    const best: Partial<Record<CutKind, number>> = {};
    for (let p = lo; p <= hi; p++) {
      if (!isWs(content.charCodeAt(p - 1)) || isWs(content.charCodeAt(p))) continue;
      let kind: CutKind;
      if (isLineStart(content, p)) {
        kind = followsBlankLine(content, p) ? 'para' : 'line';
        if (kind === 'line' && block.kind !== 'code' && block.kind !== 'table' && isSentenceStart(content, p)) {
          kind = 'sentence';
        }
      } else kind = isSentenceStart(content, p) ? 'sentence' : 'space';
      const known = best[kind];
      if (known === undefined || Math.abs(p - aim) < Math.abs(known - aim)) best[kind] = p;
    }
    let cut: number | undefined;
    for (const kind of preference) {
      cut = best[kind];
      if (cut !== undefined) break;
    }
    if (cut === undefined) {
      cut = aim;
      const code = content.charCodeAt(cut);
      if (code >= 0xdc00 && code <= 0xdfff) {
        const before = content.charCodeAt(cut - 1);
        if (before >= 0xd800 && before <= 0xdbff) cut = cut - 1 > pos ? cut - 1 : cut + 1;
      }
    }
    const pieceEnd = trimBack(content, pos, cut);
    pieces.push([pos, pieceEnd]);
    pos = skipWs(content, cut, end);
  }
  pieces.push([pos, end]);
  return pieces;
}

/** Whether a sentence (isSentenceStart) or a line (isLineStart) starts at `p`: where sentencesOf cuts. */
export const startsSentenceOrLine = (content: string, p: number) =>
  isSentenceStart(content, p) || isLineStart(content, p);

/** A sentence shorter than this joins the next one (a heading, a list marker, "Yes."). */
const MIN_SENTENCE_CHARS = 40;
/** A sentence longer than this is cut (at a space near the limit): a run-on line is not one vector. */
const MAX_SENTENCE_CHARS = 400;

/**
 * The sentences of a passage's text, each at least MIN_SENTENCE_CHARS long where the text allows
 * (shorter ones join the next) and at most MAX_SENTENCE_CHARS: cut at sentence ends and at line
 * starts (headings, list items, table rows). For sentence vectors, which tell the passage that
 * states a fact from same-topic passages around it better than the passage's own vector does.
 */
export function sentencesOf(text: string): string[] {
  const cuts = [0];
  for (let p = 1; p < text.length; p++) if (startsSentenceOrLine(text, p)) cuts.push(p);
  cuts.push(text.length);
  const out: string[] = [];
  let pending = '';
  for (let i = 0; i + 1 < cuts.length; i++) {
    let piece = text.slice(cuts[i], cuts[i + 1]).trim();
    while (piece.length > MAX_SENTENCE_CHARS) {
      const space = piece.lastIndexOf(' ', MAX_SENTENCE_CHARS);
      const at = space > MAX_SENTENCE_CHARS / 2 ? space : MAX_SENTENCE_CHARS;
      out.push(`${pending}${pending ? ' ' : ''}${piece.slice(0, at).trim()}`.slice(0, MAX_SENTENCE_CHARS * 2));
      pending = '';
      piece = piece.slice(at).trim();
    }
    pending = pending ? `${pending} ${piece}` : piece;
    if (pending.length >= MIN_SENTENCE_CHARS) {
      out.push(pending);
      pending = '';
    }
  }
  if (pending) {
    if (out.length > 0 && out[out.length - 1]!.length + pending.length < MAX_SENTENCE_CHARS)
      out[out.length - 1] += ` ${pending}`;
    else out.push(pending);
  }
  return out.filter((s) => s !== '');
}

/** A passage as an entry search answers it: its text, where it lies in the content, its score, the query's words marked. */
export interface AnsweredPassage {
  text: string;
  start: number;
  end: number;
  score: number;
  highlights: { start: number; end: number }[];
}

/**
 * The first `count` of `ranked` (best first) cut from `content`, each with the query's words
 * marked (markTerms): `text === content.slice(start, end)` by construction. The offsets must lie
 * within `content` (the callers check that they are offsets into this very version).
 */
export function cutPassages(
  content: string,
  ranked: readonly { start: number; end: number; score: number }[],
  query: string,
  language: string | null | undefined,
  count: number,
): AnsweredPassage[] {
  return ranked.slice(0, Math.max(0, count)).map((p) => {
    const text = content.slice(p.start, p.end);
    return { text, start: p.start, end: p.end, score: p.score, highlights: markTerms(text, query, language) };
  });
}
