import { analyzeText } from '@kb/common';

/**
 * How likely a hit answers the question, 0-1: a logistic function of two signals that mean the
 * same thing whatever the query (the ranking score does not: its keyword half is divided by the
 * best in the list, so every list's first hit looks perfect):
 * - `cosine`: the best passage's vector against the question's (the model's own scale);
 * - `coverage`: the share of the question's stems found in the entry's title and its best passages.
 * The coefficients are fitted on `npm run eval` (docs/eval.md, "Calibration"): at 0.5 and above
 * the entry most likely answers.
 */
export const RELEVANCE_MODEL = { intercept: -6.5, cosine: 12, coverage: 3 };

export function relevanceOf(cosine: number, coverage: number): number {
  const z = RELEVANCE_MODEL.intercept + RELEVANCE_MODEL.cosine * cosine + RELEVANCE_MODEL.coverage * coverage;
  return 1 / (1 + Math.exp(-z));
}

/** The share (0-1) of the query's stems (in `language`) that occur among `texts`' stems; 0 for a query of stop words only. */
export function coverageOf(query: string, texts: string[], language: string | null): number {
  const wanted = new Set(
    analyzeText(query, language)
      .split(' ')
      .filter((t) => t !== ''),
  );
  if (wanted.size === 0) return 0;
  const have = new Set(analyzeText(texts.join('\n'), language).split(' '));
  let found = 0;
  for (const t of wanted) if (have.has(t)) found += 1;
  return found / wanted.size;
}
