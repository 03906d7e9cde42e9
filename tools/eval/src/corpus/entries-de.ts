/**
 * The German entries, written in German: seven topics, two or three entries each. Same shape as
 * entries-en.ts: [Satz, Schlüsselstelle, Frage] near the start, in the middle and near the end.
 */
import { entriesIn, type EntrySpec } from './types';

const entry = entriesIn('de');

export const GERMAN_ENTRIES: EntrySpec[] = [
  // --- Versand --------------------------------------------------------------------------------
  entry(
    'de-standardversand',
    'versand',
    'Standardversand innerhalb Deutschlands',
    'Standardversand',
    'Wie normale Pakete aus unserem Lager zu Ihnen kommen und was der Versand kostet.',
    [
      [
        'Pakete mit Standardversand werden in der Regel zwei bis drei Werktage nach der Bestellung zugestellt.',
        'zwei bis drei Werktage nach der Bestellung zugestellt',
        'Wie lange dauert es, bis meine normale Lieferung ankommt?',
      ],
      [
        'Ab einem Warenwert von 39 Euro entfallen die Versandkosten.',
        'Ab einem Warenwert von 39 Euro entfallen die Versandkosten',
        'Ab welchem Einkaufsbetrag muss ich kein Porto zahlen?',
      ],
      [
        'Zustellungen an Packstationen sind mit Standardversand möglich, wenn die Postnummer im Kundenkonto hinterlegt ist.',
        'wenn die Postnummer im Kundenkonto hinterlegt ist',
        'Was brauche ich, um mir ein Paket an einen Abholautomaten schicken zu lassen?',
      ],
    ],
  ),
  entry(
    'de-expressversand',
    'versand',
    'Expressversand',
    'Expressversand',
    'Die schnellen Versandarten: Annahmeschluss, Aufpreis und Zustellung am Wochenende.',
    [
      [
        'Expressbestellungen, die bis 12 Uhr eingehen, werden am nächsten Werktag geliefert.',
        'bis 12 Uhr eingehen, werden am nächsten Werktag geliefert',
        'Bis wann muss ich bestellen, damit die Ware morgen da ist?',
      ],
      [
        'Der Expresszuschlag beträgt 9,90 Euro pro Paket.',
        'Expresszuschlag beträgt 9,90 Euro',
        'Wie viel kostet die schnelle Zustellung extra?',
      ],
      [
        'Samstagszustellung ist nur in Großstädten buchbar.',
        'Samstagszustellung ist nur in Großstädten buchbar',
        'Kann ich mir etwas am Wochenende liefern lassen, wenn ich auf dem Land wohne?',
      ],
    ],
  ),
  entry(
    'de-auslandsversand',
    'versand',
    'Versand ins Ausland',
    'Auslandsversand',
    'Bestellungen ins Ausland: Lieferländer, Zoll und Laufzeiten.',
    [
      [
        'Wir liefern in alle Länder der Europäischen Union sowie in die Schweiz und nach Liechtenstein.',
        'sowie in die Schweiz und nach Liechtenstein',
        'In welche Staaten außerhalb der EU schickt ihr Bestellungen?',
      ],
      [
        'Bei Sendungen in die Schweiz zahlt der Empfänger Zoll und Einfuhrumsatzsteuer bei der Zustellung.',
        'zahlt der Empfänger Zoll und Einfuhrumsatzsteuer',
        'Wer übernimmt die Abgaben, wenn ich nach Zürich bestelle?',
      ],
      [
        'Die Lieferzeit ins Ausland beträgt je nach Land fünf bis zehn Werktage.',
        'je nach Land fünf bis zehn Werktage',
        'Wie lange braucht ein Paket nach Spanien?',
      ],
    ],
  ),
  // --- Rückgabe -------------------------------------------------------------------------------
  entry(
    'de-rueckgabe',
    'rueckgabe',
    'Rückgabe und Widerruf',
    'Rückgabe',
    'Artikel zurückschicken: Fristen, Rücksendeetikett und Erstattung.',
    [
      [
        'Sie können Artikel innerhalb von 30 Tagen nach Erhalt ohne Angabe von Gründen zurückschicken.',
        'innerhalb von 30 Tagen nach Erhalt ohne Angabe von Gründen',
        'Wie viel Zeit habe ich, wenn mir etwas nicht gefällt?',
      ],
      [
        'Das Rücksendeetikett erstellen Sie selbst im Kundenkonto unter Meine Bestellungen.',
        'Rücksendeetikett erstellen Sie selbst im Kundenkonto',
        'Wo bekomme ich den Aufkleber für das Zurückschicken?',
      ],
      [
        'Die Erstattung erfolgt innerhalb von 14 Tagen auf das ursprüngliche Zahlungsmittel.',
        'innerhalb von 14 Tagen auf das ursprüngliche Zahlungsmittel',
        'Wann bekomme ich mein Geld zurück?',
      ],
    ],
  ),
  entry(
    'de-umtausch',
    'rueckgabe',
    'Umtausch',
    'Umtausch',
    'Artikel gegen eine andere Größe oder Farbe tauschen, online und im Geschäft.',
    [
      [
        'Ein Umtausch in eine andere Größe ist kostenlos und wird direkt nach Eingang der Rücksendung verschickt.',
        'kostenlos und wird direkt nach Eingang der Rücksendung verschickt',
        'Was kostet es, wenn ich die Schuhe eine Nummer größer brauche?',
      ],
      [
        'Reduzierte Ware kann nur gegen denselben Artikel in anderer Größe getauscht werden.',
        'Reduzierte Ware kann nur gegen denselben Artikel',
        'Darf ich ein Schnäppchen gegen ein anderes Produkt wechseln?',
      ],
      [
        'Ein Umtausch im Geschäft ist mit dem Kassenbon oder der Bestellbestätigung möglich.',
        'mit dem Kassenbon oder der Bestellbestätigung',
        'Was muss ich mitbringen, wenn ich online Gekauftes in der Filiale tauschen will?',
      ],
    ],
  ),
  entry(
    'de-elektrogeraete',
    'rueckgabe',
    'Rücksendung von Elektrogeräten',
    'Elektrogeräte',
    'Was vor der Rücksendung eines Geräts zu tun ist, und die Rücknahme von Altgeräten.',
    [
      [
        'Elektrogeräte müssen vor der Rücksendung auf Werkseinstellungen zurückgesetzt werden.',
        'auf Werkseinstellungen zurückgesetzt werden',
        'Muss ich mein Handy löschen, bevor ich es zurückgebe?',
      ],
      [
        'Altgeräte nehmen wir beim Kauf eines gleichwertigen Neugeräts kostenlos zurück.',
        'Altgeräte nehmen wir beim Kauf eines gleichwertigen Neugeräts kostenlos zurück',
        'Entsorgt ihr meinen alten Kühlschrank, wenn ich einen neuen kaufe?',
      ],
      [
        'Fehlendes Zubehör wird vom Erstattungsbetrag abgezogen.',
        'Fehlendes Zubehör wird vom Erstattungsbetrag abgezogen',
        'Was passiert, wenn das Ladekabel nicht mehr im Karton ist?',
      ],
    ],
  ),
  // --- Zahlung --------------------------------------------------------------------------------
  entry(
    'de-rechnungskauf',
    'zahlung',
    'Kauf auf Rechnung',
    'Rechnungskauf',
    'Erst die Ware, dann die Zahlung: Fristen, Grenzen und Mahnungen.',
    [
      [
        'Beim Kauf auf Rechnung ist der Betrag 14 Tage nach Versand fällig.',
        '14 Tage nach Versand fällig',
        'Wie lange habe ich Zeit, die Ware zu bezahlen, wenn ich später zahle?',
      ],
      [
        'Der Kauf auf Rechnung ist bis zu einem Bestellwert von 1.000 Euro möglich.',
        'bis zu einem Bestellwert von 1.000 Euro',
        'Gibt es eine Obergrenze, wenn ich erst nach Erhalt bezahlen will?',
      ],
      [
        'Nach der zweiten Mahnung wird eine Gebühr von 5 Euro berechnet.',
        'Nach der zweiten Mahnung wird eine Gebühr von 5 Euro berechnet',
        'Was kostet es, wenn ich zu spät überweise?',
      ],
    ],
  ),
  entry(
    'de-ratenzahlung',
    'zahlung',
    'Ratenzahlung',
    'Ratenzahlung',
    'Einkäufe in Raten bezahlen: Mindestbetrag, Laufzeiten und Prüfung.',
    [
      [
        'Ratenzahlung ist ab einem Warenkorb von 150 Euro möglich, mit Laufzeiten von 6 bis 36 Monaten.',
        'ab einem Warenkorb von 150 Euro möglich',
        'Ab welchem Einkaufswert kann ich in monatlichen Teilbeträgen zahlen?',
      ],
      [
        'Eine Sondertilgung ist jederzeit kostenlos möglich.',
        'Sondertilgung ist jederzeit kostenlos möglich',
        'Darf ich den Kredit früher ablösen, ohne draufzuzahlen?',
      ],
      [
        'Die Bonitätsprüfung erfolgt durch unseren Finanzierungspartner und dauert meist nur wenige Sekunden.',
        'dauert meist nur wenige Sekunden',
        'Wie schnell erfahre ich, ob meine Finanzierung genehmigt wird?',
      ],
    ],
  ),
  entry(
    'de-lastschrift',
    'zahlung',
    'Lastschrift und SEPA-Mandat',
    'Lastschrift',
    'Bezahlen per Lastschrift: wann abgebucht wird, Rücklastschriften und das Mandat.',
    [
      [
        'Die Lastschrift wird frühestens am Versandtag von Ihrem Konto eingezogen.',
        'frühestens am Versandtag von Ihrem Konto eingezogen',
        'Wann wird das Geld abgebucht, wenn ich per Bankeinzug zahle?',
      ],
      [
        'Für eine zurückgegebene Lastschrift berechnen wir die Bankgebühr von 3 Euro.',
        'zurückgegebene Lastschrift berechnen wir die Bankgebühr von 3 Euro',
        'Was passiert, wenn die Abbuchung mangels Deckung platzt?',
      ],
      [
        'Das SEPA-Mandat kann jederzeit im Kundenkonto widerrufen werden.',
        'SEPA-Mandat kann jederzeit im Kundenkonto widerrufen werden',
        'Wie ziehe ich meine Einzugsermächtigung zurück?',
      ],
    ],
  ),
  // --- Wein -----------------------------------------------------------------------------------
  entry(
    'de-weinlieferung',
    'wein',
    'Weinlieferung und Altersprüfung',
    'Weinlieferung',
    'Wie Weinbestellungen übergeben werden und was der Bote prüfen muss.',
    [
      [
        'Bei der Zustellung von Wein muss der Empfänger dem Boten einen amtlichen Lichtbildausweis zeigen.',
        'einen amtlichen Lichtbildausweis zeigen',
        'Muss ich mich ausweisen, wenn der Wein gebracht wird?',
      ],
      [
        'Weinsendungen werden nicht bei Nachbarn abgegeben.',
        'Weinsendungen werden nicht bei Nachbarn abgegeben',
        'Darf der Fahrer die Flaschen nebenan lassen, wenn ich nicht da bin?',
      ],
      [
        'Ab zwölf Flaschen liefern wir Wein versandkostenfrei.',
        'Ab zwölf Flaschen liefern wir Wein versandkostenfrei',
        'Wann entfällt das Porto bei einer Bestellung von Rotwein?',
      ],
    ],
  ),
  entry(
    'de-weinabo',
    'wein',
    'Das Weinabo',
    'Weinabo',
    'Regelmäßig Wein nach Hause: Lieferrhythmus, Pausen und Kündigung.',
    [
      [
        'Das Weinabo liefert alle sechs Wochen ein Paket mit sechs Flaschen.',
        'alle sechs Wochen ein Paket mit sechs Flaschen',
        'Wie oft kommt die Kiste im Abonnement und wie viele Weine sind drin?',
      ],
      [
        'Eine Lieferung kann bis sieben Tage vor dem Versand ausgesetzt werden.',
        'bis sieben Tage vor dem Versand ausgesetzt',
        'Kann ich eine Box überspringen, weil ich im Urlaub bin?',
      ],
      [
        'Das Abo ist monatlich kündbar, ohne Mindestlaufzeit.',
        'monatlich kündbar, ohne Mindestlaufzeit',
        'Wie komme ich aus dem Wein-Abonnement wieder raus?',
      ],
    ],
  ),
  // --- Garantie -------------------------------------------------------------------------------
  entry(
    'de-gewaehrleistung',
    'garantie',
    'Gewährleistung und Herstellergarantie',
    'Gewährleistung',
    'Welche Rechte Sie bei Mängeln haben und was die Herstellergarantie ergänzt.',
    [
      [
        'Die gesetzliche Gewährleistung beträgt zwei Jahre ab Lieferung.',
        'gesetzliche Gewährleistung beträgt zwei Jahre ab Lieferung',
        'Wie lange habe ich rechtlich Anspruch auf Reparatur bei Mängeln?',
      ],
      [
        'Herstellergarantien werden direkt beim Hersteller geltend gemacht; die Bedingungen stehen im Garantieschein.',
        'die Bedingungen stehen im Garantieschein',
        'Wo finde ich, was die Garantie des Produzenten abdeckt?',
      ],
      [
        'Schäden durch Sturz oder Flüssigkeit sind von der Gewährleistung ausgeschlossen.',
        'Schäden durch Sturz oder Flüssigkeit',
        'Ich habe Kaffee über mein Tablet gekippt, wird das kostenlos repariert?',
      ],
    ],
  ),
  entry(
    'de-garantieverlaengerung',
    'garantie',
    'Garantieverlängerung',
    'Garantieverlängerung',
    'Zusätzlicher Schutz für Geräte: Abschluss, Selbstbeteiligung und Laufzeit.',
    [
      [
        'Die Garantieverlängerung kann bis 30 Tage nach dem Kauf abgeschlossen werden.',
        'bis 30 Tage nach dem Kauf abgeschlossen',
        'Kann ich den zusätzlichen Schutz auch nachträglich noch buchen?',
      ],
      [
        'Bei einem Schaden übernimmt die Versicherung die Reparatur abzüglich 50 Euro Selbstbeteiligung.',
        'abzüglich 50 Euro Selbstbeteiligung',
        'Wie viel muss ich selbst tragen, wenn mein Gerät kaputtgeht?',
      ],
      [
        'Die Verlängerung endet automatisch, wenn das Gerät ersetzt wurde.',
        'endet automatisch, wenn das Gerät ersetzt wurde',
        'Läuft mein Schutz weiter, nachdem ich ein Austauschgerät bekommen habe?',
      ],
    ],
  ),
  // --- Gutscheine und Abholung ----------------------------------------------------------------
  entry(
    'de-geschenkgutscheine',
    'gutscheine',
    'Geschenkgutscheine',
    'Geschenkgutscheine',
    'Gültigkeit, Restguthaben und Einlösung unserer Geschenkgutscheine.',
    [
      [
        'Geschenkgutscheine sind drei Jahre gültig, gerechnet ab Ende des Kaufjahres.',
        'drei Jahre gültig, gerechnet ab Ende des Kaufjahres',
        'Wann verfällt ein Gutschein, den ich geschenkt bekommen habe?',
      ],
      [
        'Ein Restguthaben bleibt auf der Karte und kann bei der nächsten Bestellung eingelöst werden.',
        'Restguthaben bleibt auf der Karte',
        'Was passiert mit dem Betrag, der nach dem Einkauf übrig ist?',
      ],
      [
        'Gutscheine können nicht gegen Bargeld eingetauscht werden.',
        'nicht gegen Bargeld eingetauscht werden',
        'Kann ich mir den Wert auszahlen lassen?',
      ],
    ],
  ),
  entry(
    'de-abholung',
    'abholung',
    'Abholung in der Filiale',
    'Abholung in der Filiale',
    'Online bestellen und im Geschäft abholen: Bereitstellung, Fristen und was Sie mitbringen.',
    [
      [
        'Bestellungen zur Abholung liegen meist nach vier Stunden in der Filiale bereit.',
        'nach vier Stunden in der Filiale bereit',
        'Wie schnell kann ich meine Online-Bestellung im Laden holen?',
      ],
      [
        'Nicht abgeholte Ware wird nach zehn Tagen storniert.',
        'Nicht abgeholte Ware wird nach zehn Tagen storniert',
        'Wie lange wartet das Geschäft auf mich?',
      ],
      [
        'Zur Abholung bringen Sie den Abholcode aus der E-Mail mit.',
        'den Abholcode aus der E-Mail',
        'Was muss ich vorzeigen, wenn ich die Sachen im Markt hole?',
      ],
    ],
  ),
];
