import { analyzeText } from '@kb/text';

/**
 * The share (0-1) of the query's stems (in `language`) that occur among `texts`' stems; 0 for a
 * query of stop words only. Chooses passages again when the index holds another version of an
 * entry than MongoDB (relevance itself is calibrated by the similarity service).
 */
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
