/**
 * What kind of answer a question asks for, and which passages state one: a lexical answer type,
 * as question-answering systems have matched them since the TREC QA track (a "how much" question
 * wants an amount, a "how long" question a duration). It helps choose an entry's passages where
 * words choose them (the lexical profile: a language the embedding model does not know), because
 * the answering sentence often shares no word with the question but its kind: "Was kostet der
 * Expressversand zusätzlich?" is answered by "Der Expresszuschlag beträgt 9,90 Euro".
 *
 * Three types, each stated by a number (digits or a number word) and a unit, so that reference
 * numbers, dates of examples and section numbers do not count:
 * - `money`: an amount (euro, €, cent, dollar, pound, percent);
 * - `duration`: a span of time (days, working days, weeks, months, years, hours, minutes);
 * - `clock`: a time of day (12 Uhr, 2 pm, noon).
 * English and German; another language states none and asks for none.
 */

export type AnswerType = 'money' | 'duration' | 'clock';

type Lang = 'en' | 'de';

const GERMAN_NUMBER =
  '(?:\\d+(?:[.,]\\d+)?|ein|eine|einen|einem|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|elf|zwölf|' +
  'fünfzehn|vierzehn|zwanzig|dreißig|hundert)';
const ENGLISH_NUMBER =
  '(?:\\d+(?:[.,]\\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|' +
  'fifteen|twenty|thirty|hundred)';
/** Not a letter or digit (JavaScript's \b knows no umlauts). */
const EDGE = '(?<![\\p{L}\\p{N}])';
const END = '(?![\\p{L}\\p{N}])';
const pattern = (source: string) => new RegExp(source, 'iu');

/** A passage states a type when one of these matches its text. */
const STATED: Record<Lang, Record<AnswerType, RegExp>> = {
  de: {
    money: pattern(`${EDGE}${GERMAN_NUMBER}\\s*(?:euro${END}|eur${END}|cent${END}|prozent${END}|€|%)|€\\s*\\d`),
    duration: pattern(
      `${EDGE}${GERMAN_NUMBER}(?:\\s+bis\\s+${GERMAN_NUMBER})?\\s+` +
        `(?:werktag|arbeitstag|kalendertag|bankarbeitstag|tag|woche|monat|jahr|stunde|minute)(?:e|en|n|es|s)?${END}`,
    ),
    clock: pattern(`${EDGE}\\d{1,2}(?:[:.]\\d{2})?\\s*uhr${END}`),
  },
  en: {
    money: pattern(
      `${EDGE}${ENGLISH_NUMBER}\\s*(?:euros?${END}|eur${END}|cents?${END}|dollars?${END}|pounds?${END}|` +
        `percent${END}|per cent${END}|€|%)|[€$£]\\s*\\d`,
    ),
    duration: pattern(
      `${EDGE}${ENGLISH_NUMBER}(?:\\s+(?:to|or)\\s+${ENGLISH_NUMBER})?\\s+(?:business |working |calendar )?` +
        `(?:days?|weeks?|months?|years?|hours?|minutes?)${END}`,
    ),
    clock: pattern(
      `${EDGE}\\d{1,2}(?:[:.]\\d{2})?\\s*(?:am|pm|a\\.m\\.|p\\.m\\.|o'clock)${END}|${EDGE}(?:noon|midnight)${END}`,
    ),
  },
};

/** A question asks for these types when one of these matches it. */
const ASKED: Record<Lang, [RegExp, AnswerType[]][]> = {
  de: [
    [
      pattern(
        `${EDGE}(?:kostet|kosten|kostenlos|teuer|gebühr|gebühren|preis|aufpreis|zuschlag|betrag|wie hoch|` +
          `welche[mnrs]? (?:bestellwert|einkaufswert|einkaufsbetrag|warenwert|mindestbestellwert)|wie viel geld)${END}`,
      ),
      ['money'],
    ],
    [
      pattern(`${EDGE}(?:wie lange|wie viele (?:tage|werktage|wochen|monate|jahre|stunden)|wie schnell|frist)${END}`),
      ['duration'],
    ],
    [pattern(`${EDGE}(?:wann|bis wann|ab wann|uhrzeit|um wie viel uhr)${END}`), ['duration', 'clock']],
  ],
  en: [
    [pattern(`${EDGE}(?:how much|costs?|fees?|price|charged?|charges|surcharge|spend|free)${END}`), ['money']],
    [
      pattern(`${EDGE}(?:how long|how many (?:days|weeks|months|years|hours)|how soon|how quickly|deadline)${END}`),
      ['duration'],
    ],
    [pattern(`${EDGE}(?:when|what time|until when)${END}`), ['duration', 'clock']],
  ],
};

const languagesOf = (language: string | null | undefined): Lang[] => {
  const primary = (language ?? '').trim().toLowerCase().split(/[-_]/)[0];
  if (primary === 'en' || primary === 'de') return [primary];
  return language ? [] : ['en', 'de'];
};

/**
 * The types a question asks for, in the language it is read in (none given: English and German;
 * another: none), in a fixed order.
 */
export function askedAnswerTypes(question: string, language: string | null | undefined): AnswerType[] {
  const asked = new Set<AnswerType>();
  for (const lang of languagesOf(language)) {
    for (const [re, types] of ASKED[lang]) if (re.test(question)) for (const t of types) asked.add(t);
  }
  return (['money', 'duration', 'clock'] as const).filter((t) => asked.has(t));
}

/** The types a text states, in its language (none given: English or German; another: none). */
export function statedAnswerTypes(text: string, language: string | null | undefined): AnswerType[] {
  const langs = languagesOf(language);
  return (['money', 'duration', 'clock'] as const).filter((t) => langs.some((lang) => STATED[lang][t].test(text)));
}
