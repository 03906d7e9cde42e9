/** Text helpers shared by the corpus checks and the scoring: normalisation and content words. */
import { STOPWORDS } from './data';

/** Lower case, NFKC, typographic quotes and dashes made plain, Markdown emphasis dropped, whitespace collapsed. */
export function normalise(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2018\u2019\u201a\u201b]/g, "'")
    .replace(/[\u201c\u201d\u201e\u201f]/g, '"')
    .replace(/[\u2010-\u2015]/g, '-')
    .replace(/[*_`]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Words of a text: letters and digits, apostrophes kept inside words. */
export function words(text: string): string[] {
  return normalise(text).match(/[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu) ?? [];
}

/** A crude stem: a plural s dropped, then the first five characters (deliveries/delivered, cards/card, Flaschen/Flasche). */
function stem(word: string): string {
  const w = word.length > 3 ? word.replace(/s$/, '') : word;
  return w.length > 5 ? w.slice(0, 5) : w;
}

/** The stems of a text's content words (stop words and one-letter words left out). */
export function contentStems(text: string): Set<string> {
  return new Set(
    words(text)
      .filter((w) => w.length > 1 && !STOPWORDS.has(w))
      .map(stem),
  );
}

/** Content-word stems two texts share. */
export function sharedContent(a: string, b: string): string[] {
  const sb = contentStems(b);
  return [...contentStems(a)].filter((s) => sb.has(s));
}
