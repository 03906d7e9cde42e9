/**
 * Would a window around the sentence that chose a passage answer more often than the passage
 * itself? On a recording (`npm run eval -- --record FILE`), each answerable paraphrase whose entry
 * the shipped ranking puts in the top 5 has its three passages chosen again (replay.ts); each
 * passage's best sentence (the sentence match that chose it: cosine less the centrality penalty)
 * is found among the passage's sentences by its cosine to the question (the local model, one text
 * per run as the service embeds), and a window of W characters is cut around it, its edges moved
 * in to where sentencesOf would cut (startsSentenceOrLine). Prints, per language, how often the fact lies in the chunks as
 * returned, in the windows, and in either, and the characters a hit carries. docs/search.md ("A
 * window around the choosing sentence") has the figures.
 *
 *   node tools/eval/dist/windows.js --in /tmp/matches.json
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { sentencesOf, startsSentenceOrLine } from '@kb/text';
import { dot, questionProfile, rankEntries } from '@kb/search';
import { BareSession } from '@kb/bench';
import { ensureEmbeddingModel } from '@kb/devstack';
import { LOCAL_MODEL_LANGUAGES } from './baseline';
import { passageContains } from './metrics';
import { asRead, PASSAGES, type Recording } from './replay';

const WIDTHS = [600, 800, 1000, 1200];
/** A sentence match and the sentence found for it agree this closely (cosines). */
const SAME_COSINE = 0.02;

/** Where each sentence of a passage (sentencesOf) lies in its text, found by its first and last words. */
function sentenceSpans(text: string): { sentence: string; start: number; end: number }[] {
  let from = 0;
  return sentencesOf(text).map((sentence) => {
    const head = text.indexOf(sentence.slice(0, 25), from);
    const start = head < 0 ? from : head;
    const tail = text.indexOf(sentence.slice(-25), start);
    const end = tail < 0 ? Math.min(text.length, start + sentence.length) : tail + Math.min(25, sentence.length);
    from = start + 1;
    return { sentence, start, end };
  });
}

/** `width` characters around [start, end), its edges moved inwards to a sentence or line start. */
function windowAround(content: string, start: number, end: number, width: number): [number, number] {
  if (end - start >= width) return [start, end];
  let lo = Math.max(0, start - Math.floor((width - (end - start)) / 2));
  let hi = Math.min(content.length, lo + width);
  lo = Math.max(0, Math.min(lo, hi - width));
  while (lo < start && !startsSentenceOrLine(content, lo)) lo++;
  while (hi > end && hi < content.length && !startsSentenceOrLine(content, hi)) hi--;
  return [lo, hi];
}

interface Tally {
  n: number;
  chunks: number;
  chunkChars: number;
  /** Returned passages, and those whose choosing sentence was found in them. */
  passages: number;
  located: number;
  windows: Map<number, { hits: number; either: number; chars: number }>;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { in: { type: 'string' } }, strict: true });
  if (!values.in) throw new Error('--in FILE: a recording of `npm run eval -- --record FILE`');
  const recording = JSON.parse(readFileSync(values.in, 'utf8')) as Recording;
  const session = await BareSession.open(await ensureEmbeddingModel((msg) => process.stderr.write(`${msg}\n`)));
  const vectors = new Map<string, Float32Array>();
  const embed = async (text: string) => {
    let v = vectors.get(text);
    if (!v) vectors.set(text, (v = (await session.embed([text], 1))[0]!));
    return v;
  };
  const entries = new Map(recording.entries.map((e) => [e.slug, e]));
  const tallies = new Map<string, Tally>();
  for (const q of recording.questions) {
    const entry = q.entrySlug ? entries.get(q.entrySlug) : undefined;
    if (q.set !== 'paraphrase' || !entry) continue;
    const profile = questionProfile(q.text, q.language, LOCAL_MODEL_LANGUAGES);
    const hits = rankEntries(asRead(q.matches, profile.passageChoice), 10, PASSAGES, profile);
    const rank = hits.findIndex((h) => h.id === entry.id) + 1;
    if (rank === 0 || rank > 5) continue;
    let t = tallies.get(q.language);
    if (!t)
      tallies.set(q.language, (t = { n: 0, chunks: 0, chunkChars: 0, passages: 0, located: 0, windows: new Map() }));
    t.n++;
    const content = entry.content;
    const chunks = hits[rank - 1]!.passages.map((p) => ({ text: content.slice(p.start, p.end) }));
    const inChunks = passageContains(chunks, q.key!);
    if (inChunks) t.chunks++;
    t.chunkChars += chunks.reduce((n, c) => n + c.text.length, 0);

    const question = await embed(q.text.trim());
    const penalty = profile.passageChoice.centralityPenalty;
    const matches = q.matches.sentence?.find((h) => h.id === entry.id)?.passages ?? [];
    /** Per returned passage, the sentence that chose it, or the passage itself where none did. */
    const chosen: { start: number; end: number; sentence: boolean }[] = [];
    for (const p of hits[rank - 1]!.passages) {
      const adjusted = (m: { score: number; centrality?: number }) => m.score - penalty * (m.centrality ?? 0);
      const own = matches.filter((m) => m.start === p.start).sort((a, b) => adjusted(b) - adjusted(a))[0];
      let found: { start: number; end: number } | undefined;
      let closest = SAME_COSINE;
      if (own) {
        for (const s of sentenceSpans(content.slice(p.start, p.end))) {
          const off = Math.abs(dot(await embed(s.sentence), question) - own.score);
          if (off < closest) [closest, found] = [off, { start: p.start + s.start, end: p.start + s.end }];
        }
      }
      chosen.push(found ? { ...found, sentence: true } : { start: p.start, end: p.end, sentence: false });
      t.passages++;
      if (found) t.located++;
    }
    for (const width of WIDTHS) {
      const texts = chosen.map((s) => {
        const [a, b] = s.sentence ? windowAround(content, s.start, s.end, width) : [s.start, s.end];
        return { text: content.slice(a, b) };
      });
      const w = t.windows.get(width) ?? { hits: 0, either: 0, chars: 0 };
      t.windows.set(width, w);
      const inWindows = passageContains(texts, q.key!);
      if (inWindows) w.hits++;
      if (inWindows || inChunks) w.either++;
      w.chars += texts.reduce((n, c) => n + c.text.length, 0);
    }
  }
  await session.close();
  const f = (x: number, n: number) => (x / n).toFixed(3);
  process.stdout.write('| paraphrases, entry in the top 5 | n | fact in the 3 returned | characters per hit |\n');
  process.stdout.write('| --- | ---: | ---: | ---: |\n');
  for (const [language, t] of [...tallies].sort(([a], [b]) => b.localeCompare(a))) {
    process.stdout.write(
      `| ${language}, chunks (shipped; the choosing sentence found in ${t.located} of ${t.passages}) | ${t.n} | ` +
        `${f(t.chunks, t.n)} | ${Math.round(t.chunkChars / t.n)} |\n`,
    );
    for (const [width, w] of t.windows)
      process.stdout.write(
        `| ${language}, windows of ${width} (either: ${f(w.either, t.n)}) | ${t.n} | ${f(w.hits, t.n)} | ${Math.round(w.chars / t.n)} |\n`,
      );
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  });
}
