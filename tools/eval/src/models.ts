/**
 * How well an embedding model's vectors alone serve entry search on the evaluation corpus, without
 * the stack: each English (or German) entry split and embedded the way the similarity service
 * indexes it (passages with title and headings; every sentence alone and read in its context; the
 * topic), the questions embedded, and entries ranked by the meaning entry search gives them
 * (SEMANTIC's shares of the best passage's, sentence's, sentence-in-context's and topic's
 * cosines), an entry's passages chosen as it chooses them (choosePassages, SEMANTIC.passageChoice; from
 * all its sentences, where the service reads an entry's best `sentencesPerHit`). No BM25: this compares
 * models, not the search; the
 * whole search is `npm run eval`. docs/search.md ("Other local models") has its figures.
 *
 *   node tools/eval/dist/models.js [--model DIR] [--pooling mean|cls] [--query-prefix TEXT]
 *                                  [--batch N] [--language en|de]
 *
 * DIR holds model.onnx and tokenizer.json, as EMBEDDING_MODEL_DIR does (default: the local model).
 * `--batch 1` runs one text per inference, as the service runs the quantized model; an unquantized
 * model gives the same vectors in batches, faster.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { splitPassages, type Passage } from '@kb/text';
import { centralities, choosePassages, dot, SEMANTIC, type PassageCandidate } from '@kb/search';
import { BareSession, type Pooling } from '@kb/bench';
import { ensureEmbeddingModel } from '@kb/devstack';
import {
  modelFilesIn,
  passageVectorText,
  sentenceContextText,
  sentencesOfPassages,
  topicVectorText,
} from '@kb/similarity';
import { buildCorpus, type CorpusEntry } from './corpus/generate';
import { passageContains } from './metrics';
import { POSITIONS, type Language } from './corpus/types';

interface Options {
  model?: string;
  pooling: Pooling;
  queryPrefix: string;
  batch: number;
  language: Language;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      model: { type: 'string' },
      pooling: { type: 'string', default: 'mean' },
      'query-prefix': { type: 'string', default: '' },
      batch: { type: 'string', default: '1' },
      language: { type: 'string', default: 'en' },
    },
    strict: true,
  });
  const { pooling, language } = values;
  const batch = Number(values.batch);
  if (pooling !== 'mean' && pooling !== 'cls') throw new Error('--pooling is mean or cls');
  if (language !== 'en' && language !== 'de') throw new Error('--language is en or de');
  if (!Number.isInteger(batch) || batch < 1) throw new Error('--batch must be an integer ≥ 1');
  return { model: values.model, pooling, queryPrefix: values['query-prefix'], batch, language };
}

const max = (xs: number[]) => xs.reduce((m, x) => Math.max(m, x), -1);

interface Embedded {
  entry: CorpusEntry;
  passages: Passage[];
  passageVectors: Float32Array[];
  /** Per passage, its sentences' vectors alone (they choose the passage), and their centralities. */
  sentences: Float32Array[][];
  /** The sentences' text, per passage (one sentence chooses one passage: choosePassages). */
  sentenceTexts: string[][];
  centrality: number[][];
  /** Every sentence's vector read in its context (they rank the entry). */
  contexts: Float32Array[];
  /** The entry's topic: title and summary (the corpus has no similarity_text; it ranks the entry). */
  topic: Float32Array;
}

async function embedEntry(session: BareSession, entry: CorpusEntry, batch: number): Promise<Embedded> {
  const passages = splitPassages(entry.content);
  const lists = sentencesOfPassages(passages);
  const passageVectors = await session.embed(
    passages.map((p) => passageVectorText(entry.title, p)),
    batch,
  );
  const flatAlone = await session.embed(lists.flat(), batch);
  const contexts = await session.embed(
    lists.flatMap((ss, j) => ss.map((s) => sentenceContextText(entry.title, passages[j]!, s))),
    batch,
  );
  const [topic] = await session.embed([topicVectorText(entry)], 1);
  const central = centralities(flatAlone);
  let next = 0;
  const sentences = lists.map((ss) => ss.map(() => flatAlone[next++]!));
  next = 0;
  const centrality = lists.map((ss) => ss.map(() => central[next++]!));
  return { entry, passages, passageVectors, sentences, sentenceTexts: lists, centrality, contexts, topic: topic! };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const files = options.model
    ? modelFilesIn(options.model)
    : await ensureEmbeddingModel((msg) => process.stderr.write(`${msg}\n`));
  const session = await BareSession.open(files, 256, options.pooling);
  const corpus = buildCorpus();
  const entries = corpus.entries.filter((e) => e.language === options.language);
  const questions = corpus.questions.filter((q) => q.language === options.language && q.entrySlug);

  const started = performance.now();
  const embedded: Embedded[] = [];
  for (const entry of entries) embedded.push(await embedEntry(session, entry, options.batch));
  const embedSeconds = (performance.now() - started) / 1000;
  const texts = embedded.reduce((n, e) => n + 1 + e.passages.length + 2 * e.sentences.flat().length, 0);
  const queryVectors = await session.embed(
    questions.map((q) => options.queryPrefix + q.question),
    options.batch,
  );
  await session.close();

  const shares = SEMANTIC.meaning;
  const penalty = SEMANTIC.passageChoice.centralityPenalty;
  let r1 = 0;
  let r5 = 0;
  let mrr = 0;
  let passageHits = 0;
  const byPosition = Object.fromEntries(POSITIONS.map((p) => [p, { found: 0, n: 0 }]));
  questions.forEach((q, i) => {
    const v = queryVectors[i]!;
    const ranked = embedded
      .map((e) => {
        const own = e.passageVectors.map((x) => dot(v, x));
        const alone = e.sentences.map((ss) => ss.map((x) => dot(v, x)));
        const context = e.contexts.map((x) => dot(v, x));
        const meaning =
          shares.passage * max(own) +
          shares.sentence * max(alone.flat()) +
          shares.context * max(context) +
          shares.topic * dot(v, e.topic);
        // As rankEntries chooses them, without BM25 and from all the entry's sentences.
        const candidates: PassageCandidate[] = e.passages.map((p, j) => ({
          start: p.start,
          end: p.end,
          keyword: 0,
          own: Math.max(0, own[j]!),
          sentences: alone[j]!.map((c, i) => ({
            value: Math.max(0, c - penalty * e.centrality[j]![i]!),
            key: e.sentenceTexts[j]![i]!,
          })),
        }));
        return { e, meaning, candidates };
      })
      .sort((a, b) => b.meaning - a.meaning);
    const rank = ranked.findIndex((r) => r.e.entry.slug === q.entrySlug) + 1;
    const position = byPosition[q.position!]!;
    position.n++;
    if (rank === 1) r1++;
    if (rank >= 1 && rank <= 5) {
      r5++;
      position.found++;
    }
    if (rank >= 1 && rank <= 10) mrr += 1 / rank;
    const own = ranked[rank - 1]!;
    const best = choosePassages(own.candidates, true, 0, 3).map((c) => ({
      text: own.e.entry.content.slice(c.start, c.end),
    }));
    if (passageContains(best, q.key!)) passageHits++;
  });
  const n = questions.length;
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const result = {
    model: options.model ?? 'the local model',
    pooling: options.pooling,
    queryPrefix: options.queryPrefix,
    language: options.language,
    questions: n,
    recallAt1: round(r1 / n),
    recallAt5: round(r5 / n),
    mrrAt10: round(mrr / n),
    passageAmongBest3: round(passageHits / n),
    recallAt5ByPosition: Object.fromEntries(Object.entries(byPosition).map(([p, x]) => [p, round(x.found / x.n)])),
    textsEmbedded: texts,
    embedSeconds: round(embedSeconds),
    msPerText: round((embedSeconds * 1000) / texts),
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
