import { analyzeText, detectQuestionLanguage, germanCompoundParts, markTerms } from '../src/text-analysis';

const terms = (text: string, language: string | null | undefined) => analyzeText(text, language).split(' ');
const marked = (text: string, query: string, language: string | null | undefined) =>
  markTerms(text, query, language).map(({ start, end }) => text.slice(start, end));

/** A German support text of the kind the entries hold (about 300 words, many compounds). */
const GERMAN_SUPPORT_TEXT = `
Rücksendungen und Umtausch

Sie können Artikel innerhalb von 30 Tagen nach Erhalt zurücksenden. Die Rücksendung ist für Kundinnen und Kunden
kostenlos, sofern Sie das beiliegende Rücksendeetikett verwenden. Bitte legen Sie den Lieferschein bei und geben Sie
die Bestellnummer im Rücksendeformular an. Die Versandkosten der ursprünglichen Bestellung erstatten wir nur bei
einem Widerruf des gesamten Kaufvertrags. Nach Eingang der Ware prüft unser Kundendienst die Rücksendung; die
Rückerstattung erfolgt in der Regel innerhalb von fünf Werktagen über die ursprüngliche Zahlungsart.

Beschädigte Artikel melden Sie bitte mit einem Foto über das Kontaktformular. Bei Transportschäden benötigen wir die
Sendungsnummer und eine kurze Schadensbeschreibung. Für Sperrgut und Speditionsware vereinbart unser
Kundenservice einen Abholtermin. Gutscheine und Geschenkkarten sind vom Umtausch ausgeschlossen.

Zahlungsbedingungen: Wir akzeptieren Kreditkarten, Lastschrift, Rechnungskauf und Vorkasse. Bei Zahlungsverzug
berechnen wir Mahngebühren gemäß unseren Allgemeinen Geschäftsbedingungen. Die Lieferadresse kann bis zur
Versandbestätigung im Kundenkonto geändert werden. Öffnungszeiten der Telefonhotline: Montag bis Freitag von
8 bis 18 Uhr, am Wochenende nur per E-Mail. Informationen zur Sendungsverfolgung erhalten Sie per Benachrichtigung.
`;

describe('analyzeText', () => {
  test('English: returns, returned and returning share one stem; stop words go; case is folded', () => {
    expect(analyzeText('Returns returned RETURNING return', 'en')).toBe('return return return return');
    expect(analyzeText('The return is in the box', 'en')).toBe('return box');
    expect(analyzeText("The customer's order isn’t shipped", 'en')).toBe("custom order isn't ship");
    expect(terms('shipping shipped ships', 'en')).toEqual(['ship', 'ship', 'ship']);
  });

  test('German: Rücksendungen and Rücksendung share a stem; umlauts, ß and stop words', () => {
    expect(analyzeText('Rücksendungen', 'de').split(' ')[0]).toBe(analyzeText('Rücksendung', 'de').split(' ')[0]);
    expect(terms('Größe GRÖSSE Grösse größen', 'de')).toEqual(['gross', 'gross', 'gross', 'gross']);
    expect(analyzeText('Die Lieferung und der Versand', 'de')).toBe('liefer versand');
    // Combining marks (NFD) analyse like the composed letters.
    expect(analyzeText('Ru\u0308cksendung', 'de')).toBe(analyzeText('Rücksendung', 'de'));
  });

  test('German compounds also yield their parts: Versandkosten matches Kosten', () => {
    const kosten = analyzeText('Kosten', 'de');
    expect(kosten).toBe('kost');
    const versandkosten = terms('Versandkosten', 'de');
    expect(versandkosten[0]).toBe('versandkost'); // the whole word's stem stays first
    expect(versandkosten).toContain(kosten);
    expect(versandkosten).toContain(analyzeText('Versand', 'de'));
    expect(terms('Zahlungsbedingungen', 'de')).toEqual(
      expect.arrayContaining([analyzeText('Zahlung', 'de'), analyzeText('Bedingungen', 'de')]),
    );
    expect(terms('Rücksendeadresse', 'de')).toContain(analyzeText('Adresse', 'de'));
    expect(terms('Kundenanfrage', 'de')).toContain(analyzeText('Anfrage', 'de'));
    // Short words and non-compounds stay single terms.
    expect(terms('Lieferung Informationen Möglichkeiten Versand', 'de')).toHaveLength(4);
  });

  test('other languages: lower-cased tokens, unstemmed, nothing removed', () => {
    expect(analyzeText('Les Retours sont GRATUITS', 'fr')).toBe('les retours sont gratuits');
    expect(analyzeText('The Returns', null)).toBe('the returns');
    expect(analyzeText('The Returns', undefined)).toBe('the returns');
  });

  test('language tags count by their primary subtag', () => {
    expect(analyzeText('Returns', 'en-GB')).toBe('return');
    expect(analyzeText('Rücksendungen', 'de_AT')).toBe(analyzeText('Rücksendungen', 'de'));
    expect(analyzeText('Returns', 'EN')).toBe('return');
  });

  test('tokens are Unicode letters and digits; punctuation, symbols and emoji separate them', () => {
    expect(analyzeText('Artikel 42-B: 3,5 kg! 😀 Straße_Nr.7', 'xx')).toBe('artikel 42 b 3 5 kg straße nr 7');
    expect(analyzeText('東京 Ελλάδα Ğüzel', 'xx')).toBe('東京 ελλάδα ğüzel');
    expect(analyzeText('', 'de')).toBe('');
    expect(analyzeText(' ... !!! ', 'en')).toBe('');
    expect(analyzeText('the of and', 'en')).toBe('');
  });

  test('German decompounding adds some two terms per compound, at most half the terms of a compound-dense text', () => {
    const words = GERMAN_SUPPORT_TEXT.match(/[\p{L}\p{M}\p{N}]+/gu)!;
    let plain = 0;
    let total = 0;
    let most = 0;
    for (const word of words) {
      const count = analyzeText(word, 'de') === '' ? 0 : terms(word, 'de').length;
      if (count > 0) plain++;
      total += count;
      most = Math.max(most, count);
    }
    expect(total).toBe(terms(GERMAN_SUPPORT_TEXT, 'de').length);
    // Measured: 109 words give 163 terms (+50%: 27 compounds, two parts each); the most for one word: 5
    // (Transportschäden: transportschad tran sportschad transport schad).
    expect(total / plain).toBeLessThan(1.55);
    expect(most).toBeLessThanOrEqual(5);
  });

  test('many distinct words (past the memo’s bound) analyse the same as before', () => {
    const before = analyzeText('Rücksendungen Versandkosten', 'de');
    const many = Array.from({ length: 25_000 }, (_, i) => `wort${i.toString(36)}ungen`).join(' ');
    expect(terms(many, 'de').length).toBeGreaterThanOrEqual(25_000);
    expect(analyzeText('Rücksendungen Versandkosten', 'de')).toBe(before);
    expect(analyzeText('returning', 'en')).toBe('return');
  });
});

describe('germanCompoundParts', () => {
  test.each([
    ['versandkosten', ['versand', 'kosten']],
    ['zahlungsbedingungen', ['zahlung', 'bedingungen']],
    ['rücksendungen', ['rück', 'sendungen']],
    ['kundendienstmitarbeiter', ['kundendienst', 'mitarbeiter']],
    ['öffnungszeiten', ['öffnung', 'zeiten']],
    ['lieferadresse', ['liefer', 'adresse']],
    ['geschäftsbedingungen', ['geschäft', 'bedingungen']],
    ['arbeitsende', ['arbeit', 'ende']],
    ['möglichkeiten', []],
    ['informationen', []],
    ['versand', []],
    ['rücksendung2', []],
  ])('%s → %j', (word, parts) => {
    expect(germanCompoundParts(word)).toEqual(parts);
  });
});

describe('markTerms', () => {
  test('marks every word whose stem is a query term’s stem, with exact offsets, in order', () => {
    const text = 'Returns are returned when returning. Return policy: the RETURN window.';
    const marks = markTerms(text, 'the return', 'en');
    expect(marks.map(({ start, end }) => text.slice(start, end))).toEqual([
      'Returns',
      'returned',
      'returning',
      'Return',
      'RETURN',
    ]);
    expect(marks[0]).toEqual({ start: 0, end: 7 });
    expect(marks[2]).toEqual({ start: 26, end: 35 });
    for (let i = 1; i < marks.length; i++) expect(marks[i]!.start).toBeGreaterThanOrEqual(marks[i - 1]!.end);
  });

  test('stop words in the query mark nothing; an empty query marks nothing', () => {
    expect(markTerms('The box is in the car', 'the in is', 'en')).toEqual([]);
    expect(markTerms('The box', '', 'en')).toEqual([]);
    expect(markTerms('Die Box ist im Auto', 'die im', 'de')).toEqual([]);
  });

  test('German: inflected forms and compounds are marked whole', () => {
    const text = 'Die Versandkosten und Kosten der Rücksendungen; eine Rücksendung kostet nichts.';
    expect(marked(text, 'Kosten', 'de')).toEqual(['Versandkosten', 'Kosten']);
    expect(marked(text, 'rücksendung', 'de')).toEqual(['Rücksendungen', 'Rücksendung']);
    // A compound in the query matches its parts too, as the search does.
    expect(marked('Versand und Kosten', 'Versandkosten', 'de')).toEqual(['Versand', 'Kosten']);
  });

  test('offsets are UTF-16 offsets into the original text (emoji, combining marks, CRLF)', () => {
    const text = '😀😀 Ru\u0308cksendungen\r\n🚚 Rücksendung';
    const marks = markTerms(text, 'Rücksendung', 'de');
    expect(marks).toEqual([
      { start: 5, end: 19 },
      { start: 24, end: 35 },
    ]);
    expect(text.slice(5, 19)).toBe('Ru\u0308cksendungen');
  });

  test('other languages match lower-cased words exactly', () => {
    expect(marked('Retours et RETOURS, retour', 'retours', 'fr')).toEqual(['Retours', 'RETOURS']);
  });
});

describe('detectQuestionLanguage', () => {
  test.each([
    ['Wie lange dauert der Versand in die Schweiz?', 'de'],
    ['Repariert ihr auch Fahrräder?', 'de'],
    ['Wer holt eine Rücksendung eines Kühlschranks ab?', 'de'],
    ['Can I return gear I already used outdoors?', 'en'],
    ['who do I call when the pipes freeze?', 'en'],
    ['must the person accepting a wine parcel show ID?', 'en'],
    // Told by their function words, where character n-grams alone (tinyld) read them wrong.
    ['Was kostet der Expressversand?', 'de'],
    ['Can I return a final sale item?', 'en'],
    ['Which stores offer curbside pickup?', 'en'],
    ['XRechnung or ZUGFeRD', 'en'],
    ['Don’t you ship to Austria?', 'en'],
  ])('a question of three words or more: %s is %s', (question, language) => {
    expect(detectQuestionLanguage(question)).toBe(language);
  });

  test('as many function words of each language: the character n-grams decide', () => {
    // "Versandkosten Schweiz Express" has none; "in" is in both lists.
    expect(detectQuestionLanguage('Versandkosten Schweiz Express')).toBe('de');
    expect(detectQuestionLanguage('Versandkosten in Schweiz')).toBe('de');
  });

  test('too few words, or none, or nothing either language has: undefined', () => {
    for (const q of ['refund', 'cancel order', 'Versandkosten', '', '   ', '123 456 789', '?? !! ..'])
      expect(detectQuestionLanguage(q)).toBeUndefined();
  });
});
