/** Text helpers shared by the corpus checks and the scoring: normalisation and content words. */

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

const STOPWORDS = new Set(
  // English
  (
    'a an the and or but if then so than that this these those there here of to in on at by for from with without ' +
    'into onto about as is are was were be been being am do does did done have has had having can could will would ' +
    'shall should may might must not no nor only also just very too any all each every some such own same other ' +
    'another more most less much many few one it its i me my mine we us our ours you your yours he him his she her ' +
    'they them their what which who whom whose when where why how up down out over under again once after before ' +
    'while until during get got still yet even back now today away off both either neither per via ' +
    "don't can't won't isn't i'm i've it's what's that's haven't didn't doesn't let whether whatever something anything " +
    // German
    'der die das den dem des ein eine einer einem einen eines und oder aber wenn dann als wie so dass ob zu zum zur ' +
    'im in am an auf aus bei mit nach von vor für über unter um bis durch gegen ohne ist sind war waren sein bin bist ' +
    'wird werden wurde wurden kann können muss müssen darf dürfen soll sollen will wollen habe hat haben hatte ich mich ' +
    'mir mein meine meinen meinem meiner du dich dir dein er sie es wir uns unser unsere ihr ihre ihren ihrem euch euer ' +
    'eure euren man nicht kein keine keinen noch auch nur schon sehr wieder mehr viel viele welche welcher welchem ' +
    'welchen wann wo warum was wer wem wen lange etwas da hier sich'
  ).split(/\s+/),
);

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
