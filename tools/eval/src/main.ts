/**
 * `npm run eval`: how well knowledge-entry search serves an assistant, measured through the real
 * stack on a seeded corpus (see docs/eval.md). Starts fresh backends and the four services (the
 * benchmark's stack), loads the corpus through the public API, waits for the indexer, asks every
 * question through the gateway and, beside it, the previous whole-entry search straight against
 * Elasticsearch; prints a table and writes eval-results/eval.json (the data, as the benchmark writes
 * bench-results/) and docs/eval.md (the report). Stops the stack at the end, on an error and on Ctrl-C.
 *
 *   npm run eval [-- --entries N] [--keep] [--out DIR] [--check-corpus] [--no-language] [--record FILE]
 *
 * --out DIR: eval.json and eval.md both in DIR instead.
 * --record FILE: also keep every question's Elasticsearch matches in FILE, to rank them again
 * with other settings in seconds (replay.ts).
 */
import { EVAL_DATABASE, EVAL_INDEX_PREFIX } from './env';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { Client } from '@elastic/elasticsearch';
import { startBenchStack, TENANT, type BenchStack } from '@kb/bench';
import { checkoutDir } from '@kb/devstack';
import { aliasName, elasticsearchNodes } from '@kb/search';
import { buildCorpus, checkCorpus, corpusStats, type Corpus, type Question } from './corpus/generate';
import { embedQueries, WHOLE_ENTRY, WholeEntryBaseline } from './baseline';
import {
  checkOffsets,
  fitLogistic,
  latency,
  noAnswer,
  passageContains,
  passageHitRates,
  rankOf,
  retrieval,
  retrievalByGroup,
  THRESHOLDS,
  foundAt,
  type OffsetsCheck,
  type QuestionResult,
} from './metrics';
import { markdown, summary, targets, writeReport, type OwnWordsQuestion, type Report } from './report';
import { record } from './replay';
import { Api, CALL_TIMEOUT_MS, EntrySearch, PASSAGES, SEARCH_LIMIT } from './search';

const log = (msg: string) => process.stdout.write(`[eval] ${msg}\n`);

interface Options {
  entries: number | undefined;
  keep: boolean;
  /** Where eval.json and eval.md go: eval-results/ and docs/, or both in --out DIR. */
  out: { json: string; md: string };
  checkOnly: boolean;
  /** --no-language: questions are asked without their language (the search reads them in every language). */
  withLanguage: boolean;
  /** --record FILE: every question's EntryMatches, for replay.ts. */
  record?: string;
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    entries: undefined,
    keep: false,
    out: { json: resolve(checkoutDir(), 'eval-results'), md: resolve(checkoutDir(), 'docs') },
    checkOnly: false,
    withLanguage: true,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--entries') {
      options.entries = Number(value());
      if (!Number.isInteger(options.entries) || options.entries < 2)
        throw new Error('--entries must be an integer ≥ 2');
    } else if (arg === '--keep') options.keep = true;
    else if (arg === '--out') {
      const dir = resolve(value());
      options.out = { json: dir, md: dir };
    } else if (arg === '--check-corpus') options.checkOnly = true;
    else if (arg === '--no-language') options.withLanguage = false;
    else if (arg === '--record') options.record = resolve(value());
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(
        'npm run eval [-- --entries N] [--keep] [--out DIR] [--check-corpus] [--no-language] [--record FILE]\n',
      );
      process.exit(0);
    } else throw new Error(`unknown option ${arg}`);
  }
  return options;
}

/** Entries created per request in flight. */
const WRITERS = 4;
/** Questions of the offsets check (include_content: true). */
const OFFSET_QUESTIONS = 20;
const INDEX_DEADLINE_MS = 15 * 60_000;

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const began = performance.now();
  const startedAt = new Date().toISOString();
  const phases: Record<string, number> = {};
  let mark = performance.now();
  const phase = (name: string) => {
    const now = performance.now();
    phases[name] = (now - mark) / 1000;
    mark = now;
  };

  const corpus = buildCorpus({ entries: options.entries });
  const problems = checkCorpus(corpus);
  const stats = corpusStats(corpus);
  if (problems.length) throw new Error(`the corpus is not sound:\n  ${problems.join('\n  ')}`);
  log(
    `corpus: ${stats.entries} entries (${stats.entriesByLanguage.en} en, ${stats.entriesByLanguage.de} de, ` +
      `${stats.bytes.min}-${stats.bytes.max} bytes), ${stats.answerable} answerable and ${stats.unanswerable} unanswerable questions`,
  );
  if (options.checkOnly) {
    process.stdout.write(`${JSON.stringify(stats, null, 2)}\n`);
    return;
  }

  const stack = await startBenchStack(log);
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= stack.stop());
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping the stack`);
    void stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    log('starting the services');
    await stack.startServices({ OTEL_SDK_DISABLED: 'true' });
    phase('stack');
    const token = await stack.token('Admin');
    const api = new Api(stack.gatewayUrl, token, { timeoutMs: CALL_TIMEOUT_MS });
    const es = new Client({ nodes: elasticsearchNodes(stack.backends.elasticsearchUrl) });
    const entriesIndex = aliasName(EVAL_INDEX_PREFIX, 'entries', stack.model.name, stack.model.dims);

    const ids = await load(api, corpus);
    phase('load');
    await waitIndexed(stack, es, entriesIndex, ids.size);
    phase('index');

    const report = await evaluate(api, es, stack, corpus, ids, entriesIndex, phase, options.withLanguage);
    report.startedAt = startedAt;
    report.settings.entries = options.entries ?? 'all';
    report.seconds = (performance.now() - began) / 1000;
    report.phases = phases;
    const slugOf = new Map([...ids].map(([slug, id]) => [id, slug]));
    const written = await writeReport(report, options.out, slugOf);
    process.stdout.write(`\n${summary(report)}\n\n`);
    log(`wrote ${written.json} and ${written.md}`);
    if (process.env.EVAL_PRINT_MARKDOWN === '1') process.stdout.write(`\n${markdown(report)}\n`);
    if (options.record) {
      const baseline = new WholeEntryBaseline(es, entriesIndex, TENANT);
      const n = await record(options.record, corpus, ids, baseline, stack.model);
      log(`recorded the matches of ${n} questions in ${options.record} (node tools/eval/dist/replay.js --in it)`);
    }
    await es.close();
    await api.close();
    if (options.keep) await keepRunning(stack, token);
  } finally {
    await stop();
  }
}

/** One category, then every entry through the gateway, WRITERS at a time. Returns slug → entry id. */
async function load(api: Api, corpus: Corpus): Promise<Map<string, string>> {
  log(`writing ${corpus.entries.length} entries`);
  const category = await api.post<{ id: string }>('/categories', { name: 'Evaluation corpus' });
  const ids = new Map<string, string>();
  let next = 0;
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (next < corpus.entries.length) {
        const e = corpus.entries[next++]!;
        const created = await api.post<{ id: string }>('/knowledge-entries', {
          type: 'knowledge',
          title: e.title,
          content: e.content,
          summary: e.summary,
          tags: e.tags,
          language: e.language,
          visibility: 'internal',
          category_id: category.id,
        });
        ids.set(e.slug, created.id);
      }
    }),
  );
  return ids;
}

/** Until the indexer's backlog is empty and every entry is searchable in the entries index. */
async function waitIndexed(stack: BenchStack, es: Client, index: string, expected: number): Promise<void> {
  log('waiting for the indexer');
  const deadline = Date.now() + INDEX_DEADLINE_MS;
  let lastLog = Date.now();
  while (Date.now() < deadline) {
    const backlog = await stack.backlog();
    if (backlog === 0) {
      // Every index of the evaluation's prefix (a passage index too, if there is one).
      await es.indices.refresh({ index: `${EVAL_INDEX_PREFIX}-*`, allow_no_indices: true });
      const { count } = await es.count({ index, query: { term: { tenant_id: TENANT } } });
      if (count >= expected) return;
      if (Date.now() - lastLog > 10_000) {
        log(`  backlog empty but ${count}/${expected} entries in ${index}`);
        lastLog = Date.now();
      }
    } else if (Date.now() - lastLog > 10_000) {
      log(`  ${backlog} entries still waiting for the indexer`);
      lastLog = Date.now();
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`entries were not indexed within ${INDEX_DEADLINE_MS / 60_000} minutes`);
}

/** One question through the gateway and through the whole-entry baseline: its entry's rank in each, its passages. */
async function askQuestion(
  search: EntrySearch,
  baseline: WholeEntryBaseline,
  corpus: Corpus,
  ids: Map<string, string>,
  q: Question,
  text: string,
  vector: Float32Array,
): Promise<QuestionResult> {
  const { hits, ms } = await search.search(text, q.language);
  const base = await baseline.search(text, q.language, vector);
  const entryId = q.entrySlug ? ids.get(q.entrySlug) : undefined;
  const rank = rankOf(
    hits.map((h) => h.entry.id),
    entryId,
  );
  const entryHit = rank === null ? undefined : hits[rank - 1];
  const entry = corpus.entries.find((e) => e.slug === q.entrySlug);
  const factStart = entry && q.fact ? entry.content.indexOf(q.fact) : -1;
  const factSpan: [number, number] | undefined = factStart >= 0 ? [factStart, factStart + q.fact!.length] : undefined;
  return {
    id: q.id,
    language: q.language,
    question: text,
    ...(q.position ? { position: q.position, entryId, key: q.key } : {}),
    service: {
      rank,
      hits: hits.map((h) => ({
        id: h.entry.id,
        score: h.score,
        relevance: h.relevance ?? null,
        score_sources: h.score_sources,
      })),
      passageHit:
        entryHit && rank! <= 5 && search.mode === 'passages' ? passageContains(entryHit.passages, q.key!) : null,
      passagesOfEntry: entryHit?.passages.length ?? 0,
      passageSpans: (entryHit?.passages ?? []).map((p): [number, number] => [p.start, p.end]),
      ...(factSpan ? { factSpan } : {}),
      ms,
      warmMs: NaN,
      rawMs: NaN,
    },
    baseline: {
      rank: rankOf(
        base.hits.map((h) => h.id),
        entryId,
      ),
      hits: base.hits,
      rawMs: base.rawMs,
      warmRawMs: NaN,
    },
  };
}

async function evaluate(
  api: Api,
  es: Client,
  stack: BenchStack,
  corpus: Corpus,
  ids: Map<string, string>,
  entriesIndex: string,
  phase: (name: string) => void,
  withLanguage: boolean,
): Promise<Report> {
  const questions = corpus.questions;
  log(`embedding ${questions.length} questions for the whole-entry baseline`);
  const vectors = await embedQueries(
    stack.model,
    questions.map((q) => q.question),
  );
  const baseline = new WholeEntryBaseline(es, entriesIndex, TENANT);
  const search = new EntrySearch(api, { withLanguage });
  phase('embed');

  log(`asking ${questions.length} questions (gateway, then the whole-entry baseline)`);
  const ask = (q: Question, text: string, vector: Float32Array) =>
    askQuestion(search, baseline, corpus, ids, q, text, vector);
  const results: QuestionResult[] = [];
  for (const [i, q] of questions.entries()) {
    results.push(await ask(q, q.question, vectors[i]!));
    if (i === 0) log(`  search API mode: ${search.mode}`);
  }
  phase('questions');

  // The same facts asked in their own words (the key span as the question): the other end of the
  // scale from paraphrases, where keyword matching must carry the search.
  log('asking every fact in its own words');
  const ownWordsRanks: (number | null)[] = [];
  const ownWordsPassageHits: boolean[] = [];
  /** Each question's entry among its hits: rank and relevance (null: not among them), and its unknown terms. */
  const ownWordsQuestions: OwnWordsQuestion[] = [];
  for (const q of questions) {
    if (!q.key || !q.entrySlug) continue;
    const { hits } = await search.search(q.key, q.language);
    const rank = rankOf(
      hits.map((h) => h.entry.id),
      ids.get(q.entrySlug),
    );
    ownWordsRanks.push(rank);
    ownWordsQuestions.push({
      id: q.id,
      language: q.language,
      rank,
      relevance: rank === null ? null : (hits[rank - 1]!.relevance ?? null),
      unknownTerms: await baseline.unknownTerms(q.key, withLanguage ? q.language : undefined),
    });
    if (rank !== null && rank <= 5 && search.mode === 'passages')
      ownWordsPassageHits.push(passageContains(hits[rank - 1]!.passages, q.key));
  }
  const ownWords = {
    retrieval: retrieval(ownWordsRanks),
    passageHitRate:
      ownWordsPassageHits.length > 0 ? ownWordsPassageHits.filter(Boolean).length / ownWordsPassageHits.length : null,
    foundAt: search.mode === 'passages' ? foundAt(ownWordsQuestions.map((x) => x.relevance)) : null,
    questions: ownWordsQuestions,
  };
  phase('own words');

  // The same facts asked as a customer who knows the shop's words asks: naming the subject.
  const topicalQuestions = questions.filter((q) => q.topical);
  log(`asking ${topicalQuestions.length} questions that name their subject (gateway, then the whole-entry baseline)`);
  const topicalVectors = await embedQueries(
    stack.model,
    topicalQuestions.map((q) => q.topical!),
  );
  const topicalResults: QuestionResult[] = [];
  for (const [i, q] of topicalQuestions.entries()) topicalResults.push(await ask(q, q.topical!, topicalVectors[i]!));
  const topical = {
    retrieval: retrievalByGroup(topicalResults, 'service'),
    baseline: retrievalByGroup(topicalResults, 'baseline'),
    passageHitRate: search.mode === 'passages' ? passageHitRates(topicalResults) : null,
    foundAt:
      search.mode === 'passages'
        ? foundAt(
            topicalResults.map((r) =>
              r.service.rank === null ? null : (r.service.hits[r.service.rank - 1]!.relevance ?? null),
            ),
          )
        : null,
    questions: topicalResults.map((r) => ({
      id: r.id,
      question: r.question,
      rank: r.service.rank,
      baselineRank: r.baseline.rank,
      relevance: r.service.rank === null ? null : (r.service.hits[r.service.rank - 1]!.relevance ?? null),
      passageHit: r.service.passageHit,
    })),
  };
  phase('topical');

  log('latency: every question again, gateway and raw msearch in turn');
  for (const [i, q] of questions.entries()) {
    results[i]!.service.warmMs = (await search.search(q.question, q.language)).ms;
    const raw = await baseline.passageQuery(q.question, q.language, vectors[i]!);
    results[i]!.service.rawMs = raw.ms;
    // As the search asked it: without its language, every entry and both readings count.
    results[i]!.service.unknownTerms = withLanguage
      ? raw.unknownTerms
      : await baseline.unknownTerms(q.question, undefined);
    results[i]!.baseline.warmRawMs = (await baseline.search(q.question, q.language, vectors[i]!)).rawMs;
  }
  phase('latency');

  let offsets: OffsetsCheck | null = null;
  if (search.mode === 'passages') {
    log(`offsets: ${OFFSET_QUESTIONS} questions with include_content`);
    offsets = {
      questions: 0,
      hits: 0,
      passages: 0,
      sliceMismatches: 0,
      highlightsOutside: 0,
      hitsWithoutContent: 0,
      examples: [],
    };
    const answerable = questions.filter((q) => q.entrySlug);
    const step = Math.max(1, Math.floor(answerable.length / OFFSET_QUESTIONS));
    for (let i = 0; i < answerable.length && offsets.questions < OFFSET_QUESTIONS; i += step) {
      const q = answerable[i]!;
      checkOffsets(q.question, (await search.search(q.question, q.language, { includeContent: true })).hits, offsets);
    }
  }
  phase('offsets');

  const withRelevance = results.some((r) => r.service.hits.some((h) => h.relevance !== null));
  const searchWarm = latency(results.map((r) => r.service.warmMs));
  const rawWarm = latency(results.map((r) => r.baseline.warmRawMs));
  const calibration = fitLogistic(
    results
      .filter((r) => r.service.hits.length > 0)
      .map((r) => ({
        x: { ...r.service.hits[0]!.score_sources, unknown_terms: r.service.unknownTerms ?? 0 },
        y: r.position !== undefined && r.service.rank === 1,
      })),
  );
  const partial: Omit<Report, 'targets' | 'questions'> = {
    startedAt: '',
    seconds: 0,
    phases: {},
    machine: {
      cores: availableParallelism(),
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      servicesNode: stack.serviceNodeVersion,
    },
    settings: {
      entries: 'all',
      limit: SEARCH_LIMIT,
      passages: PASSAGES,
      thresholds: THRESHOLDS,
      database: EVAL_DATABASE,
      indexPrefix: EVAL_INDEX_PREFIX,
      entriesIndex,
      questionLanguage: withLanguage ? 'asked' : 'omitted',
    },
    mode: search.mode ?? 'fallback',
    baselineFields: { ...WHOLE_ENTRY, textFields: [...WHOLE_ENTRY.textFields] },
    corpus: corpusStats(corpus),
    service: {
      retrieval: retrievalByGroup(results, 'service'),
      passageHitRate: search.mode === 'passages' ? passageHitRates(results) : null,
      noAnswer: withRelevance ? noAnswer(results, (h) => h.relevance ?? 0) : null,
      ...(withRelevance ? {} : { noAnswerByScore: noAnswer(results, (h) => h.score) }),
    },
    baseline: { retrieval: retrievalByGroup(results, 'baseline') },
    ownWords,
    topical,
    latency: {
      search: searchWarm,
      searchCold: latency(results.map((r) => r.service.ms)),
      rawEs: rawWarm,
      rawEsCold: latency(results.map((r) => r.baseline.rawMs)),
      rawPassages: latency(results.map((r) => r.service.rawMs)),
      searchOverRawP50: searchWarm.p50 / latency(results.map((r) => r.service.rawMs)).p50,
    },
    offsets,
    calibration: calibration ?? null,
  };
  return { ...partial, targets: targets(partial), questions: results };
}

/** --keep: the stack stays up until Ctrl-C; what a client needs to reach it is printed. */
async function keepRunning(stack: BenchStack, token: string): Promise<void> {
  log(`--keep: the stack stays up; Ctrl-C stops it.`);
  log(`  gateway        ${stack.gatewayUrl} (Authorization: Bearer ${token})`);
  log(`  Elasticsearch  ${stack.backends.elasticsearchUrl}`);
  log(`  MongoDB        ${stack.mongoUri}`);
  // Until a signal handler stops the stack and exits; the timer keeps the event loop alive meanwhile.
  setInterval(() => undefined, 60_000);
  await new Promise<void>(() => undefined);
}

main().catch((err: unknown) => {
  process.stderr.write(`npm run eval: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
