/** The figures: ranks, recall@k, MRR@10, passage hits, no-answer precision at relevance thresholds, latency, a logistic fit. */
import { normalise } from './corpus/text';
import type { Language, Position } from './corpus/types';
import type { Hit } from './search';

/** Everything the run learnt about one question; written to eval.json as it is. */
export interface QuestionResult {
  id: string;
  language: Language;
  question: string;
  /** Absent for unanswerable questions. */
  position?: Position;
  entryId?: string;
  key?: string;
  service: {
    /** 1-based rank of the question's entry among the hits, null when absent. */
    rank: number | null;
    hits: { id: string; score: number; relevance: number | null; score_sources: Record<string, number> }[];
    /** Whether a returned passage of the entry's hit contains the fact's key span (null: not in the top 5). */
    passageHit: boolean | null;
    passagesOfEntry: number;
    /** [start, end) of each passage the entry's hit carried, and of the fact in the entry's content. */
    passageSpans: [number, number][];
    factSpan?: [number, number];
    ms: number;
    /** Second, warm round trip of the same question (the latency figures use these). */
    warmMs: number;
    /** The service's own passage msearch straight against Elasticsearch, warm (query vector precomputed). */
    rawMs: number;
    /** The share of the question's terms no entry contains (the same msearch; null: not counted). */
    unknownTerms?: number | null;
  };
  baseline: {
    rank: number | null;
    hits: { id: string; score: number; score_sources: Record<string, number> }[];
    rawMs: number;
    warmRawMs: number;
  };
}

export interface Retrieval {
  n: number;
  recallAt1: number;
  recallAt5: number;
  recallAt10: number;
  mrrAt10: number;
}

export function retrieval(ranks: (number | null)[]): Retrieval {
  const n = ranks.length;
  const within = (k: number) => (n ? ranks.filter((r) => r !== null && r <= k).length / n : NaN);
  return {
    n,
    recallAt1: within(1),
    recallAt5: within(5),
    recallAt10: within(10),
    mrrAt10: n ? ranks.reduce<number>((s, r) => s + (r !== null && r <= 10 ? 1 / r : 0), 0) / n : NaN,
  };
}

export function rankOf(ids: string[], id: string | undefined): number | null {
  const i = id === undefined ? -1 : ids.indexOf(id);
  return i < 0 ? null : i + 1;
}

/** Does one of the passages contain the key span, compared as normalised text? */
export function passageContains(passages: { text: string }[], key: string): boolean {
  const k = normalise(key);
  return passages.some((p) => normalise(p.text).includes(k));
}

/** Groups answerable results: all, per language, per position, per language and position. */
export function groups(results: QuestionResult[]): Record<string, QuestionResult[]> {
  const answerable = results.filter((r) => r.position);
  const out: Record<string, QuestionResult[]> = { all: answerable };
  for (const lang of ['en', 'de'] as const) out[lang] = answerable.filter((r) => r.language === lang);
  for (const pos of ['start', 'middle', 'end'] as const) out[pos] = answerable.filter((r) => r.position === pos);
  for (const lang of ['en', 'de'] as const)
    for (const pos of ['start', 'middle', 'end'] as const)
      out[`${lang}-${pos}`] = answerable.filter((r) => r.language === lang && r.position === pos);
  return out;
}

export function retrievalByGroup(results: QuestionResult[], side: 'service' | 'baseline'): Record<string, Retrieval> {
  return Object.fromEntries(
    Object.entries(groups(results)).map(([name, rs]) => [name, retrieval(rs.map((r) => r[side].rank))]),
  );
}

export interface PassageHitRate {
  /** Answerable questions whose entry is in the top 5 (the denominator). */
  n: number;
  rate: number;
}

export function passageHitRates(results: QuestionResult[]): Record<string, PassageHitRate> {
  return Object.fromEntries(
    Object.entries(groups(results)).map(([name, rs]) => {
      const counted = rs.filter((r) => r.service.passageHit !== null);
      const hits = counted.filter((r) => r.service.passageHit).length;
      return [name, { n: counted.length, rate: counted.length ? hits / counted.length : NaN }];
    }),
  );
}

export const THRESHOLDS = [0.3, 0.4, 0.5, 0.6, 0.7];

export interface NoAnswerRow {
  threshold: number;
  /** Share of unanswerable questions with no hit at or above the threshold. */
  unanswerableNoHit: number;
  /** Share of answerable questions whose entry is still among the hits at or above it. */
  answerableFound: number;
  /** Of the questions that keep a hit, the share whose top hit is right (answerable and its entry first). */
  precisionOfAnswers: number;
}

/** The no-answer table from a per-hit value (relevance normally). */
export function noAnswer(results: QuestionResult[], value: (h: QuestionResult['service']['hits'][number]) => number) {
  const unanswerable = results.filter((r) => !r.position);
  const answerable = results.filter((r) => r.position);
  return THRESHOLDS.map((t): NoAnswerRow => {
    const kept = (r: QuestionResult) => r.service.hits.filter((h) => value(h) >= t);
    const answered = results.filter((r) => kept(r).length > 0);
    const right = answered.filter((r) => r.position && kept(r)[0]!.id === r.entryId).length;
    return {
      threshold: t,
      unanswerableNoHit: unanswerable.filter((r) => kept(r).length === 0).length / Math.max(1, unanswerable.length),
      answerableFound:
        answerable.filter((r) => kept(r).some((h) => h.id === r.entryId)).length / Math.max(1, answerable.length),
      precisionOfAnswers: answered.length ? right / answered.length : NaN,
    };
  });
}

/** Per threshold, the share of questions whose entry was among the hits with at least that relevance. */
export function foundAt(relevanceOfEntry: (number | null)[]): { threshold: number; share: number }[] {
  return THRESHOLDS.map((t) => ({
    threshold: t,
    share: relevanceOfEntry.filter((r) => r !== null && r >= t).length / Math.max(1, relevanceOfEntry.length),
  }));
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export const latency = (ms: number[]) => ({
  n: ms.length,
  p50: percentile(ms, 50),
  p95: percentile(ms, 95),
  mean: ms.reduce((a, b) => a + b, 0) / Math.max(1, ms.length),
});

export interface LogisticFit {
  features: string[];
  /** P(correct) = 1 / (1 + exp(-(intercept + Σ coefficients[f] × score_sources[f]))). */
  intercept: number;
  coefficients: Record<string, number>;
  n: number;
  positives: number;
  logLoss: number;
  accuracy: number;
  auc: number;
  iterations: number;
  l2: number;
}

/**
 * P(top hit correct) from the top hit's score_sources: plain full-batch gradient descent on the
 * mean log-loss with a small L2 penalty (not on the intercept), on the raw values (no scaling,
 * so the coefficients apply to score_sources as the API returns them).
 */
export function fitLogistic(
  rows: { x: Record<string, number>; y: boolean }[],
  options: { iterations?: number; rate?: number; l2?: number } = {},
): LogisticFit | undefined {
  const iterations = options.iterations ?? 20_000;
  const rate = options.rate ?? 1;
  const l2 = options.l2 ?? 1e-3;
  const features = [...new Set(rows.flatMap((r) => Object.keys(r.x)))].sort();
  if (rows.length < 4 || features.length === 0) return undefined;
  const X = rows.map((r) => features.map((f) => r.x[f] ?? 0));
  const y = rows.map((r) => (r.y ? 1 : 0));
  const w = features.map(() => 0);
  let b = 0;
  const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
  const predict = (xi: number[]) => sigmoid(b + xi.reduce((s, v, j) => s + v * w[j]!, 0));
  for (let it = 0; it < iterations; it++) {
    const gw = features.map(() => 0);
    let gb = 0;
    X.forEach((xi, i) => {
      const err = predict(xi) - y[i]!;
      gb += err;
      xi.forEach((v, j) => (gw[j]! += err * v));
    });
    b -= (rate * gb) / X.length;
    w.forEach((_, j) => (w[j]! -= rate * (gw[j]! / X.length + l2 * w[j]!)));
  }
  const p = X.map(predict);
  const eps = 1e-12;
  const logLoss = -p.reduce((s, pi, i) => s + (y[i] ? Math.log(pi + eps) : Math.log(1 - pi + eps)), 0) / p.length;
  const accuracy = p.filter((pi, i) => (pi >= 0.5 ? 1 : 0) === y[i]).length / p.length;
  return {
    features,
    intercept: b,
    coefficients: Object.fromEntries(features.map((f, j) => [f, w[j]!])),
    n: rows.length,
    positives: y.filter(Boolean).length,
    logLoss,
    accuracy,
    auc: auc(p, y),
    iterations,
    l2,
  };
}

/** Area under the ROC curve: the chance a random positive scores above a random negative (ties half). */
function auc(scores: number[], labels: number[]): number {
  const pos = scores.filter((_, i) => labels[i] === 1);
  const neg = scores.filter((_, i) => labels[i] === 0);
  if (!pos.length || !neg.length) return NaN;
  let sum = 0;
  for (const a of pos) for (const b of neg) sum += a > b ? 1 : a === b ? 0.5 : 0;
  return sum / (pos.length * neg.length);
}

/** What the offsets check found: passages whose text is not entry.content.slice(start, end). */
export interface OffsetsCheck {
  questions: number;
  hits: number;
  passages: number;
  sliceMismatches: number;
  highlightsOutside: number;
  hitsWithoutContent: number;
  examples: { question: string; entryId: string; start: number; end: number; text: string; slice: string }[];
}

export function checkOffsets(question: string, hits: Hit[], into: OffsetsCheck): void {
  into.questions++;
  for (const h of hits) {
    into.hits++;
    const content = h.entry.content;
    if (typeof content !== 'string') {
      into.hitsWithoutContent++;
      continue;
    }
    for (const p of h.passages) {
      into.passages++;
      const slice = content.slice(p.start, p.end);
      if (slice !== p.text) {
        into.sliceMismatches++;
        if (into.examples.length < 5)
          into.examples.push({
            question,
            entryId: h.entry.id,
            start: p.start,
            end: p.end,
            text: p.text.slice(0, 120),
            slice: slice.slice(0, 120),
          });
      }
      for (const s of p.highlights ?? [])
        if (!(s.start >= 0 && s.start < s.end && s.end <= p.text.length)) into.highlightsOutside++;
    }
  }
}
