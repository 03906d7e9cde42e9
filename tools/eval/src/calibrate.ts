/**
 * How other relevance coefficients would have done on a finished `npm run eval`, without running
 * the stack again: each hit's relevance is taken from eval-results/eval.json, moved to a candidate
 * coefficient for the question's unknown terms and a candidate intercept (FusionProfile.relevance,
 * docs/search.md "Relevance"), and compared with the threshold.
 *
 *   node tools/eval/dist/calibrate.js [--in eval-results/eval.json] [--threshold 0.5]
 *
 * Per profile (semantic: English questions; lexical: German, on the local English model), one row
 * per candidate: the share of paraphrased questions whose entry is among the hits at or above the
 * threshold, the same for the facts asked in their own words, and the unanswerable questions left
 * with no hit. A question's relevance moves by the same amount for all its hits (both candidates
 * are per question), so the best hit of an unanswerable question stays its best.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { LEXICAL, SEMANTIC, type FusionProfile } from '@kb/search';
import { checkoutDir } from '@kb/devstack';

interface EvalJson {
  questions: {
    id: string;
    language: string;
    position?: string;
    entryId?: string;
    service: {
      hits: { entry: string; relevance: number | null }[];
      entryHit?: { entry: string; relevance: number | null };
      maxRelevance: number | null;
      unknownTerms?: number | null;
    };
  }[];
  ownWords: { questions?: { language: string; relevance: number | null; unknownTerms: number | null }[] };
}

/** One question as the sweep needs it: the relevance that counts (null: never found) and its unknown share. */
interface Case {
  kind: 'paraphrase' | 'own words' | 'unanswerable';
  relevance: number | null;
  unknownTerms: number;
}

const COEFFICIENTS = [0, -0.5, -1, -1.5, -2, -2.5, -3];
const INTERCEPT_SHIFTS = [-1, -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75];

const logit = (p: number) => {
  const q = Math.min(Math.max(p, 1e-6), 1 - 1e-6);
  return Math.log(q / (1 - q));
};
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

export function casesOf(report: EvalJson, language: string): Case[] {
  const cases: Case[] = [];
  for (const q of report.questions) {
    if (q.language !== language) continue;
    const unknownTerms = q.service.unknownTerms ?? 0;
    if (!q.position) {
      cases.push({ kind: 'unanswerable', relevance: q.service.maxRelevance, unknownTerms });
      continue;
    }
    const hit = q.service.hits.find((h) => h.entry === q.entryId) ?? q.service.entryHit;
    cases.push({ kind: 'paraphrase', relevance: hit?.relevance ?? null, unknownTerms });
  }
  for (const q of report.ownWords.questions ?? []) {
    if (q.language === language)
      cases.push({ kind: 'own words', relevance: q.relevance, unknownTerms: q.unknownTerms ?? 0 });
  }
  return cases;
}

/** The three shares for a candidate (coefficient, intercept), from relevance computed with `shipped`. */
export function sweepRow(
  cases: Case[],
  shipped: FusionProfile['relevance'],
  coefficient: number,
  intercept: number,
  threshold: number,
): { paraphrases: number; ownWords: number; unanswerable: number; counts: Record<Case['kind'], number> } {
  const moved = (c: Case) =>
    c.relevance === null
      ? null
      : sigmoid(
          logit(c.relevance) + (coefficient - shipped.unknownTerms) * c.unknownTerms + (intercept - shipped.intercept),
        );
  const share = (kind: Case['kind'], pass: (r: number | null) => boolean) => {
    const of = cases.filter((c) => c.kind === kind);
    return of.length ? of.filter((c) => pass(moved(c))).length / of.length : NaN;
  };
  const kept = (r: number | null) => r !== null && r >= threshold;
  return {
    paraphrases: share('paraphrase', kept),
    ownWords: share('own words', kept),
    unanswerable: share('unanswerable', (r) => !kept(r)),
    counts: {
      paraphrase: cases.filter((c) => c.kind === 'paraphrase').length,
      'own words': cases.filter((c) => c.kind === 'own words').length,
      unanswerable: cases.filter((c) => c.kind === 'unanswerable').length,
    },
  };
}

function main(): void {
  const args = process.argv.slice(2);
  const arg = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  if (args.includes('--help')) {
    process.stdout.write('node tools/eval/dist/calibrate.js [--in eval-results/eval.json] [--threshold 0.5]\n');
    return;
  }
  const file = resolve(arg('--in') ?? resolve(checkoutDir(), 'eval-results/eval.json'));
  const threshold = Number(arg('--threshold') ?? 0.5);
  const report = JSON.parse(readFileSync(file, 'utf8')) as EvalJson;
  if (!report.ownWords.questions) process.stderr.write(`${file} has no own-words questions: that column stays empty\n`);
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '–');
  const out: string[] = [
    `Relevance candidates on ${file}, threshold ${threshold}`,
    '',
    '| profile | unknown × | intercept | paraphrases found | own words found | unanswerable with no hit |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const [name, language, profile] of [
    ['semantic (en)', 'en', SEMANTIC],
    ['lexical (de)', 'de', LEXICAL],
  ] as const) {
    const cases = casesOf(report, language);
    const shipped = profile.relevance;
    for (const coefficient of COEFFICIENTS) {
      for (const shift of INTERCEPT_SHIFTS) {
        const intercept = Math.round((shipped.intercept + shift) * 100) / 100;
        const row = sweepRow(cases, shipped, coefficient, intercept, threshold);
        const isShipped = coefficient === shipped.unknownTerms && shift === 0;
        out.push(
          `| ${name} | ${coefficient} | ${intercept}${isShipped ? ' (shipped)' : ''} | ${f(row.paraphrases)} | ` +
            `${f(row.ownWords)} | ${f(row.unanswerable)} |`,
        );
      }
    }
    const { counts } = sweepRow(cases, shipped, 0, shipped.intercept, threshold);
    out.push(`| ${name}: n | | | ${counts.paraphrase} | ${counts['own words']} | ${counts.unanswerable} |`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

if (require.main === module) main();
