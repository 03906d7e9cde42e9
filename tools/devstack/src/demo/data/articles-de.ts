/* eslint-disable max-len -- demo prose: one paragraph per line, as Markdown keeps it (prettier cannot wrap strings) */
/** Long multi-section articles (German translations of articles-en.ts). */

export const RETURNS_DE = `# Rückgabe, Umtausch und Erstattung

Dieser Artikel ist die vollständige Rückgaberegelung von Trailhead Outfitters für Bestellungen im Onlineshop und Käufe in unseren Filialen. Der Assistent zitiert ihn gegenüber Kundinnen und Kunden; das Team entscheidet damit Grenzfälle.

## Die Rückgabefrist

- Die meisten Artikel können innerhalb von **30 Tagen** nach Lieferung (Onlinebestellung) bzw. nach dem Kauf (Filiale) zurückgegeben werden.
- In der Weihnachtszeit gilt eine verlängerte Frist: Alles, was zwischen dem 15. November und dem 24. Dezember gekauft wurde, kann bis zum 15. Januar zurückgegeben werden.
- Mitglieder des Trailhead Clubs haben für jede Rückgabe **60 Tage** Zeit.
- Die Frist beginnt an dem Tag, an dem der Versanddienstleister die Zustellung bestätigt, nicht am Bestelldatum.

## Was wir zurücknehmen

Unbenutzte Artikel in der Originalverpackung nehmen wir innerhalb der Frist immer zurück. Etiketten und Anhänger sollten noch befestigt sein, Schuhe müssen im Schuhkarton zurückkommen (den Karton in einen Versandkarton stellen, nie ein Etikett direkt auf den Schuhkarton kleben).

Nicht zurücknehmen können wir:

1. Geöffnete oder befüllte Gaskartuschen und Brennstoffflaschen.
2. Hygieneartikel wie Unterwäsche, Badebekleidung und Mundstücke von Trinksystemen, wenn das Siegel geöffnet ist.
3. Zugeschnittene Ware: Seile, Reepschnüre und Gurtband als Meterware sowie auf einen Ski zugeschnittene Felle.
4. Gutscheine und Mietgebühren.

## Das Draußen-getestet-Versprechen

Ausrüstung zeigt erst draußen, was sie kann. Deshalb nehmen wir Zelte, Schlafsäcke, Isomatten und Rucksäcke **auch nach einem Einsatz im Freien** zurück, unter diesen Bedingungen:

- Der Artikel wurde höchstens **drei Nächte oder Tage** benutzt, und die Rückgabe erfolgt innerhalb der 30-Tage-Frist.
- Er ist sauber und vollständig trocken. Ein nass eingepacktes Zelt muss vor dem Zurücksenden getrocknet werden; Schimmel ist nicht abgedeckt.
- Es gibt keine Schäden über die normalen Gebrauchsspuren dieser Zeit hinaus (etwas Staub in den Nähten ist in Ordnung, ein Brandloch vom Kocher nicht).
- Alle Teile sind dabei: Heringe, Abspannleinen, Packsäcke, Reparatursets.

Unter dem Versprechen zurückgegebene Artikel erstatten wir vollständig; wir prüfen und reinigen sie und verkaufen sie in unseren Filialen als „einmal getestet" zum reduzierten Preis. Schuhe gehören nicht dazu: Wanderschuhe und Stiefel dürfen nur drinnen auf Teppich anprobiert werden, damit die Sohlen sauber bleiben.

## So funktioniert die Rücksendung einer Onlinebestellung

1. Im Kundenkonto unter „Meine Bestellungen" die Bestellung wählen und **Artikel zurücksenden** anklicken. Gastkunden nutzen das Rückgabeformular mit Bestellnummer und E-Mail-Adresse.
2. Artikel und Grund auswählen. Der Grund hilft uns, an der Erstattung ändert er nichts.
3. Das vorausbezahlte Rücksendeetikett ausdrucken (Deutschland und Österreich) oder die Rücksendeadresse notieren (alle anderen Länder).
4. Das Paket beim Versanddienstleister abgeben oder in einer unserer Filialen abgeben.

Rücksendungen aus Deutschland und Österreich sind kostenlos. Aus der Schweiz und anderen Ländern außerhalb der EU trägt die Kundin oder der Kunde das Rückporto und eventuelle Zollgebühren; die Schweizer Mehrwertsteuer erstatten wir auf Anfrage gegen das abgestempelte Ausfuhrdokument.

## Umtausch

Passt eine Größe oder Farbe nicht, statt Rückgabe **Umtausch** wählen. Wir reservieren den Ersatz sofort und versenden ihn, sobald der Versanddienstleister die Rücksendung scannt, ohne auf die Ankunft im Lager zu warten. Ein Umtausch gegen ein anderes Produkt wird als Rückgabe plus neue Bestellung abgewickelt.

## Erstattung

- Die Erstattung geht innerhalb von **5 Werktagen** nach der Prüfung im Lager an die ursprüngliche Zahlungsart zurück.
- PayPal- und Kartenerstattungen sind meist zwei Tage danach sichtbar, Überweisungen dauern bis zu fünf Tage.
- Kauf auf Rechnung: Die offene Rechnung wird reduziert, es wird nichts ausgezahlt.
- Die Versandkosten der ursprünglichen Bestellung erstatten wir, wenn die ganze Bestellung zurückkommt.
- Filialkäufe werden in der Filiale erstattet, auf die ursprüngliche Karte oder bar bis 200 EUR.

## Rückgabe in der Filiale

Onlinebestellungen können mit Lieferschein oder Bestellnummer in jeder Trailhead-Filiale zurückgegeben werden. Die Filiale prüft den Artikel, bestätigt die Rückgabe an der Kasse, und die Erstattung startet am selben Tag. Aus Kulanz darf das Filialteam eine Rückgabe nach Ablauf der Frist bis 90 Tage nach dem Kauf annehmen, dann nur als Gutschein.

## Beschädigte oder falsche Artikel

Kommt ein Paket beschädigt an oder wurde ein anderer Artikel geliefert als bestellt, bitte nicht das Rückgabeformular nutzen: Innerhalb von 14 Tagen mit einem Foto an den Kundenservice wenden. Wir schicken sofort Ersatz und holen den falschen Artikel auf unsere Kosten ab. Versteckte Mängel, die später auftreten, sind Gewährleistungsfälle, siehe den Artikel zur Gewährleistung.
`;

export const SHIPPING_DE = `# Versand und Lieferung

Alles darüber, wie Bestellungen aus dem Onlineshop von Trailhead Outfitters ankommen: Kosten, Lieferzeiten je Land, besondere Waren und was zu tun ist, wenn bei der Lieferung etwas schiefgeht.

## Versandkosten

| Ziel | Standard | Express |
| --- | --- | --- |
| Deutschland | 4,95 EUR, ab 79 EUR kostenlos | 12,90 EUR |
| Österreich | 6,95 EUR, ab 99 EUR kostenlos | 19,90 EUR |
| Schweiz | 14,90 EUR | nicht angeboten |
| Andere EU-Länder | 9,95 EUR | nicht angeboten |

Sperrige Waren (Kanus, Packrafts, große Expeditionszelte über 10 kg) kosten überall einen festen Zuschlag von 29 EUR.

## Lieferzeiten

- **Deutschland:** Bestellungen an Werktagen vor 14:00 Uhr verlassen das Lager am selben Tag und kommen meist am nächsten Werktag an.
- **Österreich:** zwei bis drei Werktage.
- **Schweiz:** drei bis fünf Werktage; der Versanddienstleister verzollt das Paket, die Einfuhrumsatzsteuer zahlt der Empfänger, außer die Bestellung wurde „verzollt geliefert" aufgegeben.
- **Deutsche Nord- und Ostseeinseln:** zwei Werktage mehr, die Pakete fahren mit der Fähre.
- **Express**-Bestellungen vor 12:00 Uhr kommen am nächsten Werktag vor 12 Uhr (Deutschland) bzw. am nächsten Werktag (Österreich).

Vorbestellte Artikel versenden wir, sobald sie im Lager eintreffen; die Produktseite zeigt das erwartete Datum. Eine Bestellung mit Artikeln unterschiedlicher Verfügbarkeit geht in einem Paket, außer die Teillieferung wurde an der Kasse gewählt.

## Versanddienstleister und Sendungsverfolgung

In Deutschland versenden wir mit DHL, in Österreich mit der Österreichischen Post; sperrige Waren kommen per Spedition mit telefonischer Terminabsprache. Sobald das Paket das Lager verlässt, erhält die Kundin oder der Kunde eine E-Mail mit dem Link zur Sendungsverfolgung. Der Assistent kann den Status lesen, wenn die Bestellnummer genannt wird.

## Gefahrgut: Gas und Brennstoff

Gaskartuschen, befüllte Brennstoffflaschen, Feueranzünder und Bärenspray sind Gefahrgut. Sie werden **nur auf der Straße innerhalb Deutschlands und Österreichs** versendet, in einem eigenen Paket als begrenzte Menge gekennzeichnet, und brauchen ein bis zwei Tage länger als der Rest der Bestellung. Sie können nicht an Packstationen, Paketshops oder auf Inseln geliefert werden, Express ist nicht möglich. Kundinnen und Kunden anderswo kaufen Kartuschen in unseren Filialen; leere Brennstoffflaschen versenden wir überallhin.

## Packstationen und Paketshops

Lieferungen an eine DHL-Packstation oder einen Paketshop sind in Deutschland für Pakete bis 31,5 kg und höchstens 120 cm Länge möglich. Als Adresse die Packstationsnummer und die DHL-Postnummer angeben. Sperrige Waren und Gefahrgut können dort nicht zugestellt werden.

## Click & Collect

Bestellungen können kostenlos in jeder Trailhead-Filiale abgeholt werden. Ware aus dem Filialbestand liegt während der Öffnungszeiten innerhalb von zwei Stunden bereit; Artikel aus dem Lager sind nach zwei bis drei Werktagen in der Filiale. Wir halten eine Abholbestellung zehn Tage bereit und erinnern nach sieben Tagen.

## Wenn bei der Lieferung etwas schiefgeht

1. **Die Sendungsverfolgung bewegt sich drei Werktage nicht:** Wir starten einen Nachforschungsauftrag und schicken Ersatz oder erstatten, wenn das Paket nach fünf weiteren Tagen nicht gefunden ist.
2. **Paket als zugestellt markiert, aber nicht erhalten:** Zuerst bei Nachbarn und im Paketshop nachfragen lassen; nach 48 Stunden eröffnen wir eine Reklamation.
3. **Beschädigtes Paket:** Den Schaden möglichst beim Fahrer vermerken lassen und ein Foto schicken; wir ersetzen die Ware, ein Rückgabeformular ist nicht nötig.
4. **Annahme verweigert oder zurück an Absender:** Die Bestellung wird abzüglich der ursprünglichen Versandkosten erstattet, sobald das Paket wieder im Lager ist.

## Bestellung ändern oder stornieren

Eine Bestellung kann im Kundenkonto geändert oder storniert werden, bis sie an das Lager übergeben ist, normalerweise innerhalb von 30 Minuten nach der Bestellung. Danach kann die Annahme verweigert oder die kostenlose Rücksendung genutzt werden.
`;

export const TENTS_DE = `# Das richtige Zelt finden

Eine Kaufberatung für Kundinnen und Kunden, die nicht wissen, welches Zelt sie brauchen. Der Assistent nutzt sie, um vor einer Empfehlung die richtigen Fragen zu stellen.

## Für wie viele Personen?

Zeltgrößen sind knapp bemessen: In ein Zweipersonenzelt passen zwei Isomatten von 51 cm nebeneinander und wenig mehr. Als Faustregel:

- Wer allein unterwegs ist und jedes Gramm zählt, nimmt ein Einpersonenzelt; alle anderen sind mit einem Zweipersonenzelt für sich allein glücklicher.
- Paare, die das Zelt tragen, nehmen ein Zweipersonenzelt; für Autocamping oder lange Touren gibt ein Dreipersonenzelt Platz für das Gepäck.
- Familien zu viert nehmen ein Tunnel- oder Kuppelzelt für fünf oder sechs, mit einer Apsis, in der man bei Regen kochen kann.

## Jahreszeiten

| Einstufung | Gemacht für | Typische Merkmale |
| --- | --- | --- |
| 3-Jahreszeiten | Frühling bis Herbst, Wind bis etwa 60 km/h | Innenzelt mit Mesh, 3-4 Stangen |
| 3-4-Jahreszeiten | exponierte Plätze, früher Schnee | geschlossene Innenzeltwände, mehr Abspannpunkte |
| 4-Jahreszeiten | Winter und Höhe, Schneelast | stärkere Stangen, Schneelappen, Außenzelt bis zum Boden |

Ein 4-Jahreszeiten-Zelt ist schwerer und wärmer und kondensiert im Sommer stärker; nicht für eine Juli-Tour nach Schweden verkaufen.

## Gewicht und Packmaß

Das Minimalgewicht umfasst Außenzelt, Innenzelt und Stangen; das Packgewicht zusätzlich Heringe, Leinen und Beutel. Ultraleichte Zelte unter 1,2 kg für zwei nutzen dünnere Stoffe (10-20 Denier) und eine Stange oder Trekkingstöcke; sie brauchen Sorgfalt auf steinigem Boden. Beim Radfahren zählt das Packmaß mehr als das Gewicht: Stangen unter 45 cm passen in eine Packtasche.

## Wasserdichtigkeit: die Wassersäule

Die Wassersäule gibt an, wie hoch eine Wassersäule sein darf, bevor der Stoff durchlässt. Ein Außenzelt mit **1.500 mm** ist bei normalem Regen dicht; **3.000 mm** und mehr braucht man für lange Stürme und für den Boden, auf den Knie und Ellbogen drücken. Mehr als 5.000 mm am Außenzelt bringt Gewicht, aber keinen Schutz, und silikonbeschichtetes Nylon (Silnylon) ist weit über seinen Wert hinaus dicht, weil die Beschichtung langsamer altert als Polyurethan.

## Tunnel, Kuppel oder Halbgeodät?

- **Tunnelzelte** bieten den meisten Platz für ihr Gewicht und stehen schnell, müssen aber mit dem Heck in den Wind und brauchen jeden Hering.
- **Kuppelzelte** stehen selbst: gut auf Fels, Sand und Plattformen, und vor dem Abspannen leicht zu versetzen.
- **Halbgeodäten** kreuzen ihre Stangen mehrfach und halten starkem Wind und Schnee stand; sie sind die Wahl für Berge und den hohen Norden.

## Innenzelt zuerst oder Außenzelt zuerst?

Zelte, die mit dem Außenzelt zuerst (oder beides zusammen) aufgebaut werden, halten das Innenzelt beim Aufbau im Regen trocken. In Skandinavien und Schottland ist das die erste Frage.

## Belüftung und Kondenswasser

Jedes Zelt kondensiert in einer kalten, windstillen Nacht, denn zwei Menschen atmen etwa einen halben Liter Wasser aus. Lüfter oben am Außenzelt, ein Spalt am Boden und ein Innenzelt mit Mesh halten es gering. Kondenswasser ist kein Leck; das vor einer Reklamation „nicht wasserdicht" erklären.

## Pflege

1. Das Zelt vor dem Einlagern vollständig trocknen, auch nach einer Nacht mit Tau.
2. Locker in einem großen Beutel lagern, nicht im Packsack.
3. Mit Wasser und Schwamm reinigen, nie in der Waschmaschine.
4. Das Außenzelt alle paar Jahre je nach Beschichtung mit Silikon- oder PU-Spray nachimprägnieren.
5. Stangensegmente, die schwer ineinandergleiten, reinigen und mit einem Tropfen Silikonöl versehen.
`;

export const SLEEPING_BAGS_DE = `# Temperaturangaben und Füllung von Schlafsäcken

Warum zwei Menschen im selben Schlafsack unterschiedlich schlafen, wie die Werte auf dem Etikett gemessen werden und welche Füllung zu welcher Tour passt.

## Die drei Werte auf dem Etikett

In Europa verkaufte Schlafsäcke werden nach EN 13537 oder der Nachfolgenorm ISO 23537 geprüft. Das Etikett zeigt drei Temperaturen:

- **Komfort:** Eine Standardfrau schläft entspannt liegend angenehm. Mit diesem Wert plant man.
- **Limit (Grenzbereich):** Ein Standardmann schläft zusammengerollt acht Stunden, ohne vor Kälte aufzuwachen.
- **Extrem:** Überleben für sechs Stunden mit Unterkühlungsrisiko. Nie damit planen; neuere ISO-Etiketten lassen ihn weg.

Wer leicht friert, und alle, die müde, hungrig oder nass sind, wählen einen Schlafsack, dessen Komfortwert 5 °C unter der kältesten erwarteten Nacht liegt.

## Die Isomatte zählt so viel wie der Schlafsack

Gemessen wird nach ISO 23537-1:2022 auf einer Matte mit **R-Wert 4,8** (ältere Tests nutzten eine dünnere Matte). Auf einer dünnen Schaummatte mit R 1,5 fühlt sich ein Schlafsack 5 bis 8 Grad kälter an, weil die Füllung unter dem Körper zusammengedrückt wird und der Boden die Wärme nimmt. Für Nächte unter null die Matte mitverkaufen: R 4 oder mehr.

## Daune oder Kunstfaser?

| | Daune | Kunstfaser |
| --- | --- | --- |
| Wärme im Verhältnis zum Gewicht | am besten | geringer |
| Packmaß | klein | größer |
| Bei Nässe | verliert Bauschkraft | behält das meiste |
| Lebensdauer | 10-20 Jahre bei guter Pflege | 5-8 Jahre |
| Preis | höher | niedriger |

Daune wird nach **Bauschkraft** (Fillpower, Kubikzoll pro Unze) bewertet: 600 ist gut, 750 sehr gut, ab 850 Expeditionsqualität. Unsere gesamte Daune ist RDS-zertifiziert, von Tieren, die weder lebend gerupft noch gestopft wurden. Kunstfaser passt zu feuchtem Klima, Kanutouren und Kindern, die in drei Jahren aus dem Schlafsack herauswachsen.

## Form und Größe

Mumienschlafsäcke sind für ihr Gewicht am wärmsten. Rechteckige und „Komfort"-Formen geben den Knien Platz und passen zu Seitenschläfern, auf Kosten der Wärme. Ein zu langer Schlafsack lässt kalten Raum an den Füßen; ein zu kurzer drückt die Füllung an Kopf und Zehen zusammen. Die Länge sollte mindestens 15 cm über der Körpergröße liegen.

## Reißverschlüsse, Kapuzen und Wärmekragen

Ein durchgehender Reißverschluss lässt den Schlafsack in warmen Nächten als Decke öffnen und mit einem zweiten (linker und rechter Reißverschluss) verbinden. Ein Wärmekragen an den Schultern und eine Kapuze, die sich um das Gesicht schließt, sind unter null mehr wert als 100 g zusätzliche Füllung.

## Waschen und Lagern

1. Den Schlafsack locker im großen Baumwoll-Aufbewahrungssack lagern, nie komprimiert im Packsack.
2. Nach jeder Tour lüften und ein Inlett verwenden; es hält sauber und bringt 2 bis 5 Grad.
3. Daunenschlafsäcke selten waschen, mit Daunenwaschmittel bei 30 °C im Frontlader, und mit drei Tennisbällen auf niedriger Stufe trocknen, bis keine Klumpen mehr da sind; das dauert drei bis vier Stunden.
4. Kunstfaserschlafsäcke genauso waschen; sie trocknen in der halben Zeit.
`;
