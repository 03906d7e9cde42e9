/** eval-results/eval.json, docs/eval.md and the table printed at the end of a run. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { corpusStats } from './corpus/generate';
import type { LogisticFit, NoAnswerRow, OffsetsCheck, PassageHitRate, QuestionResult, Retrieval } from './metrics';
import type { SearchMode } from './search';
import { servicesOn } from '@kb/bench';

type Latency = { n: number; p50: number; p95: number; mean: number };

export interface Target {
  name: string;
  goal: string;
  value: number | null;
  met: boolean | null;
}

/** A fact asked in its own words: its entry's rank and relevance among the hits (null: absent), its unknown terms. */
export interface OwnWordsQuestion {
  id: string;
  language: string;
  rank: number | null;
  relevance: number | null;
  unknownTerms: number | null;
}

export interface Report {
  /** Every answerable fact asked with its key span as the question (en + de). */
  ownWords: {
    retrieval: Retrieval;
    passageHitRate: number | null;
    /** Per min_relevance threshold, the share whose entry is still found (null: no relevance in the API). */
    foundAt?: { threshold: number; share: number }[] | null;
    questions?: OwnWordsQuestion[];
  };
  /**
   * Every answerable fact asked naming its subject (corpus/questions-topical.json), through the
   * service and through the whole-entry baseline; absent in reports written before it.
   */
  topical?: {
    retrieval: Record<string, Retrieval>;
    baseline: Record<string, Retrieval>;
    passageHitRate: Record<string, PassageHitRate> | null;
    foundAt: { threshold: number; share: number }[] | null;
    questions: {
      id: string;
      question: string;
      rank: number | null;
      baselineRank: number | null;
      relevance: number | null;
      passageHit: boolean | null;
    }[];
  };
  startedAt: string;
  seconds: number;
  phases: Record<string, number>;
  machine: {
    cores: number;
    node: string;
    platform: string;
    /** The services' Node, when not the runner's. */
    servicesNode?: string;
  };
  settings: {
    entries: number | 'all';
    limit: number;
    passages: number;
    thresholds: number[];
    database: string;
    indexPrefix: string;
    entriesIndex: string;
    /** Whether the search requests named the question's language (`--no-language`: omitted). */
    questionLanguage?: 'asked' | 'omitted';
  };
  mode: SearchMode;
  baselineFields: { textFields: string[]; keywordField: string; vectorField: string };
  corpus: ReturnType<typeof corpusStats>;
  service: {
    retrieval: Record<string, Retrieval>;
    passageHitRate: Record<string, PassageHitRate> | null;
    noAnswer: NoAnswerRow[] | null;
    /** In fallback mode only: the same table with the raw hybrid score standing in for relevance. */
    noAnswerByScore?: NoAnswerRow[];
  };
  baseline: { retrieval: Record<string, Retrieval> };
  latency: {
    search: Latency;
    searchCold: Latency;
    rawEs: Latency;
    rawEsCold: Latency;
    /** The service's own passage msearch, raw: what searchOverRawP50 divides by. */
    rawPassages: Latency;
    searchOverRawP50: number;
  };
  offsets: OffsetsCheck | null;
  calibration: LogisticFit | null;
  targets: Target[];
  questions: QuestionResult[];
}

const f = (x: number | null | undefined, digits = 3) =>
  x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(digits);
const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(1)} ms` : '–');
const signed = (x: number, digits: number) => `${x < 0 ? '-' : '+'} ${Math.abs(x).toFixed(digits)}`;
const status = (t: Target) => (t.met === null ? 'not measured' : t.met ? 'met' : 'not met');

export function targets(r: Omit<Report, 'targets' | 'questions'>): Target[] {
  const at = (goal: number, value: number | null | undefined, name: string, sign = '≥'): Target => {
    const v = value === undefined || value === null || !Number.isFinite(value) ? null : value;
    return { name, goal: `${sign} ${goal}`, value: v, met: v === null ? null : sign === '≥' ? v >= goal : v <= goal };
  };
  const s = r.service.retrieval;
  const half = r.service.noAnswer?.find((row) => row.threshold === 0.5);
  return [
    at(0.95, s.en?.recallAt5, 'English recall@5'),
    at(0.9, s.end?.recallAt5, 'End-of-entry recall@5 (en + de)'),
    at(0.85, s.all?.mrrAt10, 'MRR@10 (en + de)'),
    at(0.85, r.service.passageHitRate?.all?.rate, 'Passage hit rate (entry in the top 5)'),
    at(0.8, half?.unanswerableNoHit, 'min_relevance 0.5: unanswerable questions with no hit'),
    at(0.8, half?.answerableFound, 'min_relevance 0.5: answerable questions still finding their entry'),
    at(0.75, s.de?.recallAt5, 'German recall@5'),
    at(2, r.latency.searchOverRawP50, 'Search p50 / raw ES p50', '≤'),
  ];
}

const GROUP_ROWS: [string, string][] = [
  ['all', 'All answerable'],
  ['en', 'English'],
  ['de', 'German'],
  ['start', 'Fact near the start'],
  ['middle', 'Fact in the middle'],
  ['end', 'Fact near the end'],
  ['en-end', 'English, end'],
  ['de-end', 'German, end'],
];

function table(headers: string[], rows: string[][]): string {
  return [
    `| ${headers.join(' | ')} |`,
    `| ${headers.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

function modeLine(r: Report): string {
  const language = r.settings.questionLanguage === 'omitted' ? '' : ', language';
  return r.mode === 'passages'
    ? `passages (the gateway answered \`{query, limit: 10, passages: 3${language}, include_content: false}\` with passages and relevance` +
        (language ? ')' : '; no `language`: every question read in English and German, every entry searched)')
    : 'fallback (the gateway refused the passage fields with a 422, so only `{query, limit, language}` was sent: ' +
        'no passages, no relevance)';
}

export function markdown(r: Report): string {
  const s = r.service.retrieval;
  const b = r.baseline.retrieval;
  const out: string[] = [];
  out.push('# Knowledge-entry search: evaluation', '');
  out.push(
    `Run of ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC on ${r.machine.cores} cores ` +
      `(${r.machine.platform}, Node ${r.machine.node}${servicesOn(r.machine)}); ` +
      `${(r.seconds / 60).toFixed(1)} minutes. Search API mode: ${modeLine(r)}.`,
    '',
    `Corpus: ${r.corpus.entries} entries (${r.corpus.entriesByLanguage.en} English, ${r.corpus.entriesByLanguage.de} German, ` +
      `${r.corpus.bytes.min}-${r.corpus.bytes.max} bytes of Markdown, mean ${r.corpus.bytes.mean}), ` +
      `${r.corpus.answerable} answerable questions (one per planted fact) and ${r.corpus.unanswerable} that nothing answers. ` +
      `A question shares on average ${r.corpus.sharedContentWords.mean.toFixed(2)} content words with its fact ` +
      `(at most ${r.corpus.sharedContentWords.max}).`,
    '',
  );
  out.push('## Targets', '');
  out.push(
    table(
      ['Target', 'Goal', 'Value', 'Status'],
      r.targets.map((t) => [t.name, t.goal, f(t.value), status(t)]),
    ),
    '',
  );
  out.push('## Retrieval', '');
  out.push(
    'The question’s entry among the hits of `POST /api/knowledge/search/entries` (limit 10, the question’s language), beside the ' +
      'previous whole-entry algorithm run directly against Elasticsearch (the similarity service’s `hybridMatches` + `rankHybrid` ' +
      'over the entry-level fields and vector).',
    '',
  );
  out.push(
    table(
      ['Questions', 'n', 'R@1', 'R@5', 'R@10', 'MRR@10', 'whole-entry R@1', 'R@5', 'R@10', 'MRR@10'],
      GROUP_ROWS.filter(([k]) => s[k]?.n).map(([k, label]) => [
        label,
        String(s[k]!.n),
        f(s[k]!.recallAt1),
        f(s[k]!.recallAt5),
        f(s[k]!.recallAt10),
        f(s[k]!.mrrAt10),
        f(b[k]?.recallAt1),
        f(b[k]?.recallAt5),
        f(b[k]?.recallAt10),
        f(b[k]?.mrrAt10),
      ]),
    ),
    '',
  );
  out.push(
    '## Facts asked in their own words',
    '',
    'Every answerable fact asked again with its key span as the question (English and German together): the other end of the ' +
      'scale from the paraphrases above, where keyword matching must carry the search.',
    '',
    table(
      ['n', 'R@1', 'R@5', 'R@10', 'MRR@10', 'passage hit rate'],
      [
        [
          String(r.ownWords.retrieval.n),
          f(r.ownWords.retrieval.recallAt1),
          f(r.ownWords.retrieval.recallAt5),
          f(r.ownWords.retrieval.recallAt10),
          f(r.ownWords.retrieval.mrrAt10),
          r.ownWords.passageHitRate === null ? '–' : f(r.ownWords.passageHitRate),
        ],
      ],
    ),
    '',
  );
  if (r.topical) {
    const t = r.topical;
    const tb = t.baseline;
    const p = t.passageHitRate;
    const found = (x: number) => t.foundAt?.find((row) => row.threshold === x)?.share;
    out.push(
      '## Questions that name their subject',
      '',
      'Every answerable fact asked a third way, as a customer who knows what the shop calls things asks it ' +
        '(`tools/eval/corpus/questions-topical.json`: "How many days does standard delivery take?"): the question names ' +
        'its subject, mostly in its entry’s words, and asks for the fact in its own (on average ' +
        `${r.corpus.sharedContentWordsTopical?.mean.toFixed(2) ?? '–'} content words shared with the fact). ` +
        'Between the paraphrases and the facts’ own words; written once, before any run of them; a setting is kept only if ' +
        'neither these nor the paraphrases nor the own words lose by it beyond the spread between runs. ' +
        'Passage hit rate and "found at 0.5" as above.',
      '',
      table(
        [
          'Questions',
          'n',
          'R@1',
          'R@5',
          'R@10',
          'MRR@10',
          'passage hit rate',
          'found at 0.5',
          'whole-entry R@5',
          'MRR@10',
        ],
        GROUP_ROWS.filter(([k]) => t.retrieval[k]?.n).map(([k, label]) => [
          label,
          String(t.retrieval[k]!.n),
          f(t.retrieval[k]!.recallAt1),
          f(t.retrieval[k]!.recallAt5),
          f(t.retrieval[k]!.recallAt10),
          f(t.retrieval[k]!.mrrAt10),
          f(p?.[k]?.rate),
          k === 'all' ? f(found(0.5)) : '',
          f(tb[k]?.recallAt5),
          f(tb[k]?.mrrAt10),
        ]),
      ),
      '',
    );
  }
  out.push('## Passages', '');
  if (r.service.passageHitRate) {
    const p = r.service.passageHitRate;
    out.push(
      'Of the answerable questions whose entry is in the top 5: the share where one of that hit’s passages contains the fact ' +
        '(its key span, compared as normalised text).',
      '',
      table(
        ['Questions', 'n', 'Passage hit rate'],
        GROUP_ROWS.filter(([k]) => p[k]?.n).map(([k, label]) => [label, String(p[k]!.n), f(p[k]!.rate)]),
      ),
      '',
    );
  } else out.push('Not measured: the API returned no passages (fallback mode).', '');
  if (r.offsets) {
    const o = r.offsets;
    out.push(
      `Offsets check (${o.questions} questions with \`include_content: true\`): ${o.passages} passages in ${o.hits} hits; ` +
        `${o.sliceMismatches} whose text is not \`entry.content.slice(start, end)\`, ${o.highlightsOutside} highlights outside ` +
        `their passage, ${o.hitsWithoutContent} hits without content.`,
      '',
    );
  }
  out.push('## Questions nothing answers', '');
  const ownFound = (t: number) => r.ownWords.foundAt?.find((x) => x.threshold === t)?.share;
  const noAnswerTable = (rows: NoAnswerRow[], what: string, withOwnWords = false) =>
    table(
      [
        what,
        'unanswerable: no hit',
        'answerable: entry still found',
        ...(withOwnWords ? ['in their own words: entry still found'] : []),
        'top hit right, of those answered',
      ],
      rows.map((row) => [
        `≥ ${row.threshold}`,
        f(row.unanswerableNoHit),
        f(row.answerableFound),
        ...(withOwnWords ? [f(ownFound(row.threshold))] : []),
        f(row.precisionOfAnswers),
      ]),
    );
  if (r.service.noAnswer) {
    out.push(
      'Computed here from each hit’s `relevance`, as `min_relevance` would filter: a question gets no hit when no hit ' +
        'reaches the threshold. "In their own words": the same facts asked with their key span (above), whose ' +
        'questions share words with their entry as many users’ do.',
      '',
      noAnswerTable(r.service.noAnswer, 'min_relevance', true),
      '',
    );
  } else {
    out.push('Not measured: the API returned no `relevance` (fallback mode).', '');
    if (r.service.noAnswerByScore)
      out.push(
        'For orientation only, the same table with the raw hybrid `score` in place of relevance (it is not calibrated):',
        '',
        noAnswerTable(r.service.noAnswerByScore, 'score'),
        '',
      );
  }
  out.push('## Latency', '');
  out.push(
    'Sequential, one request at a time, each question once cold (first sight of the query) and once warm; the warm round is paired ' +
      'with the raw Elasticsearch msearch of the same passage query the similarity service sends (what the ≤ 2× target divides by) and ' +
      'with that of the whole-entry baseline (query vectors precomputed, not timed).',
    '',
    table(
      ['', 'n', 'p50', 'p95'],
      [
        [
          'Search through the gateway (warm)',
          String(r.latency.search.n),
          ms(r.latency.search.p50),
          ms(r.latency.search.p95),
        ],
        [
          'Search through the gateway (first call)',
          String(r.latency.searchCold.n),
          ms(r.latency.searchCold.p50),
          ms(r.latency.searchCold.p95),
        ],
        [
          'Raw ES msearch, the same passage query (warm)',
          String(r.latency.rawPassages.n),
          ms(r.latency.rawPassages.p50),
          ms(r.latency.rawPassages.p95),
        ],
        [
          'Raw ES msearch, whole-entry (warm)',
          String(r.latency.rawEs.n),
          ms(r.latency.rawEs.p50),
          ms(r.latency.rawEs.p95),
        ],
      ],
    ),
    '',
  );
  out.push('## Calibration data', '');
  if (r.calibration) {
    const c = r.calibration;
    out.push(
      `A logistic regression of P(top hit is the right entry) on the top hit’s \`score_sources\` and the question’s unknown ` +
        `terms (the share of its terms no entry contains; ${c.n} questions with a hit, ` +
        `${c.positives} right; unanswerable questions count as wrong), fitted by gradient descent (${c.iterations} steps, L2 ${c.l2}):`,
      '',
      '```text',
      `logit = ${c.intercept.toFixed(4)}${c.features.map((k) => ` ${signed(c.coefficients[k]!, 4)} × ${k}`).join('')}`,
      '```',
      '',
      `Log-loss ${c.logLoss.toFixed(4)}, accuracy at 0.5 ${c.accuracy.toFixed(3)}, AUC ${c.auc.toFixed(3)} (on the training data). ` +
        'The per-question features are in `eval-results/eval.json` (`questions[].service.hits`, `questions[].service.unknownTerms`).',
      '',
    );
  } else out.push('No fit: no hit carried score_sources.', '');
  out.push('## Reproducing', '');
  out.push(
    '```sh',
    'npm run eval                      # the whole corpus, writes eval-results/eval.json and docs/eval.md',
    'npm run eval -- --entries 12      # a quick run on 12 entries (all unanswerable questions)',
    'npm run eval -- --check-corpus    # only build and check the corpus, no stack',
    'npm run eval -- --no-language     # the questions asked without their language',
    "node tools/eval/dist/models.js    # a model's vectors alone on the corpus, no stack (docs/search.md)",
    'node tools/eval/dist/calibrate.js # other relevance coefficients on eval-results/eval.json (docs/search.md)',
    'npm run eval -- --record F.json   # also keep every question’s Elasticsearch matches in F.json, then:',
    "node tools/eval/dist/replay.js --in F.json [--semantic '{...}'] # rank them again with other settings, no stack",
    'node tools/eval/dist/windows.js --in F.json # windows around the choosing sentence instead of the chunks (docs/search.md)',
    '```',
    '',
    `The corpus is generated by \`tools/eval/src/corpus/\` from the data in \`tools/eval/corpus/\` (seed ${r.corpus.seed}): ` +
      'the same text on every machine. ' +
      `Each run starts fresh backends and the four services (as \`npm run bench\` does), in database \`${r.settings.database}\` ` +
      `and index prefix \`${r.settings.indexPrefix}\`, and stops them at the end. Baseline fields: ` +
      'the whole-entry fields the search read before passages ' +
      `(${r.baselineFields.textFields.join(', ')}; ${r.baselineFields.keywordField}; ${r.baselineFields.vectorField}).`,
    '',
    `Phases (s): ${Object.entries(r.phases)
      .map(([k, v]) => `${k} ${v.toFixed(1)}`)
      .join(', ')}.`,
    '',
  );
  return out.join('\n');
}

/** The compact table for stdout. */
export function summary(r: Report): string {
  const s = r.service.retrieval;
  const b = r.baseline.retrieval;
  const pad = (x: string, n: number) => x.padEnd(n);
  const lines = [
    `mode: ${r.mode}; ${r.corpus.entries} entries, ${r.corpus.questions} questions; ${(r.seconds / 60).toFixed(1)} min`,
    '',
    `${pad('questions', 22)}${pad('n', 5)}${pad('R@1', 7)}${pad('R@5', 7)}${pad('R@10', 7)}${pad('MRR', 7)}| whole-entry R@5  MRR`,
    ...GROUP_ROWS.filter(([k]) => s[k]?.n).map(
      ([k, label]) =>
        `${pad(label, 22)}${pad(String(s[k]!.n), 5)}${pad(f(s[k]!.recallAt1), 7)}${pad(f(s[k]!.recallAt5), 7)}` +
        `${pad(f(s[k]!.recallAt10), 7)}${pad(f(s[k]!.mrrAt10), 7)}| ${pad(f(b[k]?.recallAt5), 17)}${f(b[k]?.mrrAt10)}`,
    ),
    '',
    `facts in their own words: R@5 ${f(r.ownWords.retrieval.recallAt5)}, MRR@10 ${f(r.ownWords.retrieval.mrrAt10)}, ` +
      `passage hit rate ${r.ownWords.passageHitRate === null ? '–' : f(r.ownWords.passageHitRate)}`,
    ...(r.topical
      ? [
          `naming their subject: English R@5 ${f(r.topical.retrieval.en?.recallAt5)}, MRR@10 (en + de) ` +
            `${f(r.topical.retrieval.all?.mrrAt10)}, passage hit rate ${f(r.topical.passageHitRate?.all?.rate)}, ` +
            `German R@5 ${f(r.topical.retrieval.de?.recallAt5)}; whole-entry English R@5 ${f(r.topical.baseline.en?.recallAt5)}`,
        ]
      : []),
    `latency p50/p95: search ${ms(r.latency.search.p50)} / ${ms(r.latency.search.p95)}, ` +
      `raw passage query ${ms(r.latency.rawPassages.p50)} / ${ms(r.latency.rawPassages.p95)} ` +
      `(ratio ${f(r.latency.searchOverRawP50, 2)}), ` +
      `raw whole-entry ${ms(r.latency.rawEs.p50)}`,
    '',
    ...r.targets.map((t) => `${pad(status(t), 14)}${pad(t.name, 68)}${pad(t.goal, 8)}${f(t.value)}`),
  ];
  if (r.calibration)
    lines.push(
      '',
      `calibration: logit = ${r.calibration.intercept.toFixed(3)} ${r.calibration.features
        .map((k) => `${signed(r.calibration!.coefficients[k]!, 3)}·${k}`)
        .join(' ')} (AUC ${f(r.calibration.auc)})`,
    );
  return lines.join('\n');
}

const maxOf = (xs: (number | null)[]) => {
  const values = xs.filter((x): x is number => x !== null);
  return values.length ? round(Math.max(...values)) : null;
};

const ms1 = (x: number) => Math.round(x * 10) / 10;
const round = (x: number) => (Number.isFinite(x) ? Math.round(x * 1e4) / 1e4 : x);

/** The report with numbers rounded to 4 decimals and ids shown as the corpus slugs. */
function compact(r: Report, slugOf: Map<string, string>): unknown {
  const name = (id: string) => slugOf.get(id) ?? id;
  const hitJson = (h: QuestionResult['service']['hits'][number], sources: boolean) => ({
    entry: name(h.id),
    score: round(h.score),
    relevance: h.relevance === null ? null : round(h.relevance),
    ...(sources
      ? { score_sources: Object.fromEntries(Object.entries(h.score_sources).map(([k, v]) => [k, round(v)])) }
      : {}),
  });
  const questions = r.questions.map((q) => ({
    ...q,
    entryId: q.entryId && name(q.entryId),
    service: {
      ...q.service,
      ms: ms1(q.service.ms),
      warmMs: ms1(q.service.warmMs),
      // The top 3 (the first with its score_sources), and the entry's own hit when it ranks lower.
      hits: q.service.hits.slice(0, 3).map((h, i) => hitJson(h, i === 0)),
      ...(q.service.rank !== null && q.service.rank > 3
        ? { entryHit: hitJson(q.service.hits[q.service.rank - 1]!, false) }
        : {}),
      maxRelevance: maxOf(q.service.hits.map((h) => h.relevance)),
    },
    baseline: {
      rank: q.baseline.rank,
      top: q.baseline.hits[0] ? name(q.baseline.hits[0].id) : null,
      topScore: q.baseline.hits[0] ? round(q.baseline.hits[0].score) : null,
      rawMs: ms1(q.baseline.rawMs),
      warmRawMs: ms1(q.baseline.warmRawMs),
    },
  }));
  return JSON.parse(
    JSON.stringify({ ...r, questions }, (_k, v: unknown) => (typeof v === 'number' ? round(v) : v)),
  ) as unknown;
}

export async function writeReport(
  r: Report,
  dirs: { json: string; md: string },
  slugOf: Map<string, string>,
): Promise<{ json: string; md: string }> {
  mkdirSync(dirs.json, { recursive: true });
  mkdirSync(dirs.md, { recursive: true });
  const json = join(dirs.json, 'eval.json');
  const md = join(dirs.md, 'eval.md');
  // Formatted as prettier formats it, so the committed copy's diffs from run to run stay readable.
  const prettier = await import('prettier');
  const options = (await prettier.resolveConfig(json)) ?? {};
  writeFileSync(json, await prettier.format(JSON.stringify(compact(r, slugOf)), { ...options, parser: 'json' }));
  writeFileSync(md, markdown(r));
  return { json, md };
}
