import { askedAnswerTypes, statedAnswerTypes } from '../src/answer-types';

describe('answer types', () => {
  test.each([
    ['Was kostet der Expressversand zusätzlich?', 'de', ['money']],
    ['Ab welchem Bestellwert ist der Versand kostenlos?', 'de', ['money']],
    ['Wie hoch ist die Selbstbeteiligung?', 'de', ['money']],
    ['Wie lange dauert der Standardversand?', 'de', ['duration']],
    ['Bis wann muss ich bestellen?', 'de', ['duration', 'clock']],
    ['Kann ich eine Online-Bestellung im Laden umtauschen?', 'de', []],
    ['How much does express delivery cost?', 'en', ['money']],
    ['How long do refunds take?', 'en', ['duration']],
    ['When does the store open?', 'en', ['duration', 'clock']],
    ['Can I return a gift?', 'en', []],
    // No language given: read as English and as German.
    ['Wie lange dauert es?', undefined, ['duration']],
    // A language neither is: no kind asked for.
    ['Combien coûte la livraison ?', 'fr', []],
  ])('when asked "%s" (%s), then it asks for %j', (question, language, types) => {
    expect(askedAnswerTypes(question, language)).toEqual(types);
  });

  test.each([
    ['Der Expresszuschlag beträgt 9,90 Euro pro Paket.', 'de', ['money']],
    ['Ab einem Warenwert von 39 € entfallen die Versandkosten.', 'de', ['money']],
    ['Pakete kommen in zwei bis drei Werktagen an.', 'de', ['duration']],
    ['Rückgaben sind innerhalb von 30 Tagen möglich.', 'de', ['duration']],
    ['Bestellungen bis 12 Uhr gehen am selben Tag raus.', 'de', ['clock']],
    ['Die Beispiele verwenden erfundene Nummern wie SC-28763 und Abschnitt 3.', 'de', []],
    // A number word inside another word, or a unit inside another word, is neither.
    ['Die Zweitagesfrist steht in den Eurostat-Daten.', 'de', []],
    ['Standard delivery costs €4.95 and takes two to three business days.', 'en', ['money', 'duration']],
    ['Orders placed before 2 pm ship the same day.', 'en', ['clock']],
    ['Order 4711 is in section 3.', 'en', []],
    ['Der Zuschlag beträgt 5 Euro.', 'fr', []],
  ])('when a passage says "%s" (%s), then it states %j', (text, language, types) => {
    expect(statedAnswerTypes(text, language)).toEqual(types);
  });
});
