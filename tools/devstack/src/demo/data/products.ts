/* eslint-disable max-len -- demo prose: one paragraph per line, as Markdown keeps it (prettier cannot wrap strings) */
/**
 * The demo catalogue, generated from compact tables: product families (a parent product) ×
 * variants (size, colour, length…), each in English and German. A variant differs from its
 * siblings only by its variant value and price, so similar search finds the family first.
 */
import type { DemoProduct, Language } from '../types';

/** Bump when the catalogue changes: the next start writes it again (upserts by external_id). */
export const DEMO_PRODUCTS_VERSION = 1;

type Pair = [en: string, de: string];
interface Variant {
  code: string;
  label: Pair;
  /** Added to the family price. */
  delta?: number;
}
interface Family {
  key: string;
  brand: string;
  category: Pair;
  name: Pair;
  price: number;
  msrp?: number;
  short: Pair;
  description: Pair;
  /** Language-neutral facts (numbers, materials, norms). */
  attributes: Record<string, string | number | boolean>;
  /** What the variant axis is called. */
  axis: Pair;
  variants: Variant[];
  keywords: Pair;
}

const C = {
  tents: ['Tents', 'Zelte'],
  bags: ['Sleeping bags', 'Schlafsäcke'],
  mats: ['Sleeping mats', 'Isomatten'],
  packs: ['Backpacks', 'Rucksäcke'],
  boots: ['Hiking boots', 'Wanderschuhe'],
  trail: ['Trail running shoes', 'Trailrunning-Schuhe'],
  rain: ['Rain jackets', 'Regenjacken'],
  down: ['Down jackets', 'Daunenjacken'],
  fleece: ['Fleece jackets', 'Fleecejacken'],
  base: ['Base layers', 'Funktionswäsche'],
  stoves: ['Stoves', 'Kocher'],
  cook: ['Cookware', 'Kochgeschirr'],
  lamps: ['Headlamps', 'Stirnlampen'],
  poles: ['Trekking poles', 'Trekkingstöcke'],
  water: ['Water filters', 'Wasserfilter'],
} satisfies Record<string, Pair>;

const SIZE: Pair = ['Size', 'Größe'];
const COLOUR: Pair = ['Colour', 'Farbe'];
const LENGTH: Pair = ['Length', 'Länge'];
const sizes = (...codes: string[]): Variant[] => codes.map((c) => ({ code: c.toLowerCase(), label: [c, c] }));
const eu = (...n: number[]): Variant[] => n.map((s) => ({ code: `eu${s}`, label: [`EU ${s}`, `EU ${s}`] }));
const colour = (code: string, en: string, de: string, delta = 0): Variant => ({ code, label: [en, de], delta });
const lengths: Variant[] = [
  { code: 'regular', label: ['Regular (up to 185 cm)', 'Regular (bis 185 cm)'] },
  { code: 'long', label: ['Long (up to 200 cm)', 'Long (bis 200 cm)'], delta: 20 },
];

const FAMILIES: Family[] = [
  {
    key: 'aurora-2',
    brand: 'Nordkamm',
    category: C.tents,
    name: ['Aurora 2 ultralight dome tent', 'Aurora 2 Ultraleicht-Kuppelzelt'],
    price: 449,
    msrp: 499,
    short: ['Freestanding 2-person 3-season dome, 1.35 kg', 'Freistehendes 3-Jahreszeiten-Kuppelzelt für 2, 1,35 kg'],
    description: [
      'A freestanding two-person dome tent for backpacking from spring to autumn. Two doors and two vestibules, a silnylon fly with 3,000 mm hydrostatic head and a mesh inner tent that pitches in under three minutes.',
      'Freistehendes Kuppelzelt für zwei Personen für Trekkingtouren von Frühling bis Herbst. Zwei Eingänge und zwei Apsiden, Außenzelt aus Silnylon mit 3.000 mm Wassersäule und Mesh-Innenzelt, in unter drei Minuten aufgebaut.',
    ],
    attributes: {
      weight_g: 1350,
      persons: 2,
      season: '3-season',
      hydrostatic_head_fly_mm: 3000,
      poles: 'DAC aluminium',
    },
    axis: COLOUR,
    variants: [
      colour('green', 'Forest green', 'Waldgrün'),
      colour('sand', 'Sand', 'Sand'),
      colour('orange', 'Signal orange', 'Signalorange', 10),
    ],
    keywords: ['backpacking tent, two person tent, lightweight tent', 'Trekkingzelt, Zweipersonenzelt, leichtes Zelt'],
  },
  {
    key: 'aurora-3',
    brand: 'Nordkamm',
    category: C.tents,
    name: ['Aurora 3 dome tent', 'Aurora 3 Kuppelzelt'],
    price: 549,
    short: ['Freestanding 3-person 3-season dome, 1.9 kg', 'Freistehendes 3-Jahreszeiten-Kuppelzelt für 3, 1,9 kg'],
    description: [
      'The roomy three-person version of the Aurora: room for two adults and a child or for long trips with all bags inside. Silnylon fly with 3,000 mm, two large vestibules, freestanding on rock and platforms.',
      'Die geräumige Dreipersonen-Version des Aurora: Platz für zwei Erwachsene und ein Kind oder für lange Touren mit allem Gepäck innen. Silnylon-Außenzelt mit 3.000 mm, zwei große Apsiden, freistehend auf Fels und Plattformen.',
    ],
    attributes: {
      weight_g: 1900,
      persons: 3,
      season: '3-season',
      hydrostatic_head_fly_mm: 3000,
      poles: 'DAC aluminium',
    },
    axis: COLOUR,
    variants: [colour('green', 'Forest green', 'Waldgrün'), colour('sand', 'Sand', 'Sand')],
    keywords: ['family tent, three person tent', 'Familienzelt, Dreipersonenzelt'],
  },
  {
    key: 'polar-3',
    brand: 'Fjellstad',
    category: C.tents,
    name: ['Polar 3 four-season tunnel tent', 'Polar 3 Vierjahreszeiten-Tunnelzelt'],
    price: 1099,
    short: [
      'Expedition tunnel tent for 3, fly-first pitching, snow flaps',
      'Expeditions-Tunnelzelt für 3, Außenzelt zuerst, Schneelappen',
    ],
    description: [
      'A four-season tunnel tent for winter trips and the far north. Pitches fly first with the inner attached, stands up to storms with 12 guy points, and has snow flaps, a 5,000 mm floor and two vestibules big enough to cook in.',
      'Vierjahreszeiten-Tunnelzelt für Wintertouren und den hohen Norden. Wird mit eingehängtem Innenzelt Außenzelt zuerst aufgebaut, hält Stürmen mit 12 Abspannpunkten stand und hat Schneelappen, einen Boden mit 5.000 mm und zwei Apsiden zum Kochen.',
    ],
    attributes: { weight_g: 3600, persons: 3, season: '4-season', hydrostatic_head_floor_mm: 5000, guy_points: 12 },
    axis: COLOUR,
    variants: [colour('red', 'Red', 'Rot'), colour('green', 'Green', 'Grün')],
    keywords: ['winter tent, expedition tent, tunnel tent', 'Wintertzelt, Expeditionszelt, Tunnelzelt'],
  },
  {
    key: 'bivvy-one',
    brand: 'TrailForge',
    category: C.tents,
    name: ['Bivvy One trekking-pole shelter', 'Bivvy One Trekkingstock-Zelt'],
    price: 289,
    short: [
      'Single-wall 1-person shelter pitched with a trekking pole, 690 g',
      'Einwandiges Einpersonenzelt, mit Trekkingstock aufgebaut, 690 g',
    ],
    description: [
      'An ultralight single-wall shelter for one, pitched with a trekking pole instead of tent poles. For thru-hikers who count every gram; needs practice and good pegs on windy sites.',
      'Ultraleichtes einwandiges Zelt für eine Person, das statt mit Zeltstangen mit einem Trekkingstock aufgebaut wird. Für Weitwanderer, die jedes Gramm zählen; braucht Übung und gute Heringe bei Wind.',
    ],
    attributes: { weight_g: 690, persons: 1, season: '3-season', fabric: '20D silnylon' },
    axis: COLOUR,
    variants: [colour('grey', 'Grey', 'Grau'), colour('olive', 'Olive', 'Oliv')],
    keywords: ['ultralight shelter, solo tent, tarp tent', 'Ultraleichtzelt, Solozelt, Tarpzelt'],
  },
  {
    key: 'fjord-down-0',
    brand: 'Alpenflug',
    category: C.bags,
    name: ['Fjord 0 down sleeping bag', 'Fjord 0 Daunenschlafsack'],
    price: 399,
    short: ['Mummy down bag, comfort 0 °C, 750 fill power', 'Mumien-Daunenschlafsack, Komfort 0 °C, 750 cuin'],
    description: [
      'A three-season mummy sleeping bag with 600 g of RDS-certified 750 fill power goose down. Comfort 0 °C, limit -6 °C, draft collar and a hood that closes around the face; packs to the size of a loaf of bread.',
      'Dreijahreszeiten-Mumienschlafsack mit 600 g RDS-zertifizierter Gänsedaune mit 750 cuin. Komfort 0 °C, Limit -6 °C, Wärmekragen und Kapuze, die sich um das Gesicht schließt; packt sich auf die Größe eines Brotlaibs.',
    ],
    attributes: { weight_g: 1050, comfort_c: 0, limit_c: -6, fill: 'goose down 750 cuin', norm: 'ISO 23537' },
    axis: LENGTH,
    variants: lengths,
    keywords: ['down sleeping bag, three season sleeping bag', 'Daunenschlafsack, Dreijahreszeiten-Schlafsack'],
  },
  {
    key: 'fjord-down-minus10',
    brand: 'Alpenflug',
    category: C.bags,
    name: ['Fjord -10 winter down sleeping bag', 'Fjord -10 Winter-Daunenschlafsack'],
    price: 599,
    short: ['Winter mummy bag, comfort -10 °C, 850 fill power', 'Winter-Mumienschlafsack, Komfort -10 °C, 850 cuin'],
    description: [
      'A winter sleeping bag with 950 g of 850 fill power goose down in box-wall chambers. Comfort -10 °C, limit -17 °C, a thick draft collar and a water-resistant shell for snow caves and tents with condensation.',
      'Winterschlafsack mit 950 g Gänsedaune mit 850 cuin in Kammerkonstruktion. Komfort -10 °C, Limit -17 °C, dicker Wärmekragen und wasserabweisende Hülle für Schneehöhlen und Zelte mit Kondenswasser.',
    ],
    attributes: { weight_g: 1550, comfort_c: -10, limit_c: -17, fill: 'goose down 850 cuin', norm: 'ISO 23537' },
    axis: LENGTH,
    variants: lengths,
    keywords: ['winter sleeping bag, expedition sleeping bag', 'Winterschlafsack, Expeditionsschlafsack'],
  },
  {
    key: 'taiga-synthetic-5',
    brand: 'Fjellstad',
    category: C.bags,
    name: ['Taiga 5 synthetic sleeping bag', 'Taiga 5 Kunstfaserschlafsack'],
    price: 159,
    short: [
      'Synthetic mummy bag, comfort 5 °C, stays warm when damp',
      'Kunstfaser-Mumienschlafsack, Komfort 5 °C, wärmt auch feucht',
    ],
    description: [
      'A synthetic-fill sleeping bag for canoe trips, wet climates and scout camps. Comfort 5 °C, limit 0 °C; keeps most of its warmth when damp, machine washable and dries in a few hours.',
      'Kunstfaserschlafsack für Kanutouren, feuchtes Klima und Pfadfinderlager. Komfort 5 °C, Limit 0 °C; behält feucht den Großteil seiner Wärme, ist waschmaschinenfest und trocknet in wenigen Stunden.',
    ],
    attributes: { weight_g: 1300, comfort_c: 5, limit_c: 0, fill: 'synthetic hollow fibre', norm: 'ISO 23537' },
    axis: LENGTH,
    variants: lengths,
    keywords: ['synthetic sleeping bag, summer sleeping bag', 'Kunstfaserschlafsack, Sommerschlafsack'],
  },
  {
    key: 'cloudrest-mat',
    brand: 'Nordkamm',
    category: C.mats,
    name: ['Cloudrest insulated air mat', 'Cloudrest isolierte Luftmatte'],
    price: 189,
    short: ['Inflatable sleeping mat, R-value 4.2, 7 cm thick', 'Aufblasbare Isomatte, R-Wert 4,2, 7 cm dick'],
    description: [
      'An insulated inflatable sleeping mat with an R-value of 4.2 for three-season trips and nights around freezing. 7 cm thick, quiet fabric, a flat valve and a pump sack that doubles as a dry bag.',
      'Isolierte aufblasbare Isomatte mit R-Wert 4,2 für Dreijahreszeiten-Touren und Nächte um den Gefrierpunkt. 7 cm dick, leises Material, Flachventil und Pumpsack, der auch Packsack ist.',
    ],
    attributes: { weight_g: 480, r_value: 4.2, thickness_cm: 7, type: 'inflatable' },
    axis: SIZE,
    variants: [
      { code: 'regular', label: ['Regular 183 × 51 cm', 'Regular 183 × 51 cm'] },
      { code: 'wide', label: ['Wide 183 × 64 cm', 'Wide 183 × 64 cm'], delta: 20 },
      { code: 'long', label: ['Long wide 198 × 64 cm', 'Long Wide 198 × 64 cm'], delta: 30 },
    ],
    keywords: ['air mattress, sleeping pad, insulated mat', 'Luftmatratze, Isomatte, Schlafmatte'],
  },
  {
    key: 'ridge-foam-mat',
    brand: 'Summit & Co',
    category: C.mats,
    name: ['Ridge folding foam mat', 'Ridge faltbare Schaummatte'],
    price: 49,
    short: [
      'Closed-cell foam mat, R 2.0, cannot puncture',
      'Geschlossenzellige Schaummatte, R 2,0, kann nicht platzen',
    ],
    description: [
      'A folding closed-cell foam mat that cannot puncture: sit mat at breaks, extra insulation under an air mat in winter, or the only mat for summer nights. R-value 2.0, folds like an accordion.',
      'Faltbare Schaummatte aus geschlossenzelligem Schaum, die nicht platzen kann: Sitzmatte in der Pause, Zusatzisolation unter der Luftmatte im Winter oder einzige Matte für Sommernächte. R-Wert 2,0, faltet wie eine Ziehharmonika.',
    ],
    attributes: { weight_g: 410, r_value: 2.0, thickness_cm: 2, type: 'closed-cell foam' },
    axis: COLOUR,
    variants: [colour('yellow', 'Yellow', 'Gelb'), colour('blue', 'Blue', 'Blau')],
    keywords: ['foam pad, camping mat', 'Schaumstoffmatte, Campingmatte'],
  },
  {
    key: 'highline-48',
    brand: 'Fjellstad',
    category: C.packs,
    name: ['Highline 48 trekking backpack', 'Highline 48 Trekkingrucksack'],
    price: 229,
    short: [
      '48-litre trekking pack with adjustable back length',
      '48-Liter-Trekkingrucksack mit verstellbarer Rückenlänge',
    ],
    description: [
      'A 48-litre trekking backpack for hut tours and multi-day hikes. The back length adjusts in a minute, the hip belt carries up to 18 kg, and a front zip opens the main compartment like a suitcase.',
      'Trekkingrucksack mit 48 Litern für Hüttentouren und Mehrtageswanderungen. Die Rückenlänge lässt sich in einer Minute verstellen, der Hüftgurt trägt bis 18 kg, und ein Frontreißverschluss öffnet das Hauptfach wie einen Koffer.',
    ],
    attributes: { weight_g: 1650, volume_l: 48, max_load_kg: 18, back_system: 'adjustable' },
    axis: SIZE,
    variants: [
      { code: 'sm', label: ['S/M (back 40-48 cm)', 'S/M (Rücken 40-48 cm)'] },
      { code: 'ml', label: ['M/L (back 46-54 cm)', 'M/L (Rücken 46-54 cm)'] },
    ],
    keywords: ['hiking backpack, trekking rucksack, hut tour pack', 'Wanderrucksack, Hüttenrucksack'],
  },
  {
    key: 'highline-65',
    brand: 'Fjellstad',
    category: C.packs,
    name: ['Highline 65 expedition backpack', 'Highline 65 Expeditionsrucksack'],
    price: 289,
    short: ['65-litre pack for tent trekking with 25 kg load', '65-Liter-Rucksack für Zelttouren mit 25 kg Last'],
    description: [
      'The 65-litre Highline carries tent, food and fuel for a week: a stiffer frame for 25 kg, a separate sleeping bag compartment, a removable lid that becomes a day pack, and rain cover included.',
      'Der Highline mit 65 Litern trägt Zelt, Essen und Brennstoff für eine Woche: ein steiferer Rahmen für 25 kg, ein eigenes Schlafsackfach, ein abnehmbarer Deckel, der zum Tagesrucksack wird, und eine Regenhülle.',
    ],
    attributes: { weight_g: 2250, volume_l: 65, max_load_kg: 25, rain_cover: true },
    axis: SIZE,
    variants: [
      { code: 'sm', label: ['S/M (back 40-48 cm)', 'S/M (Rücken 40-48 cm)'] },
      { code: 'ml', label: ['M/L (back 46-54 cm)', 'M/L (Rücken 46-54 cm)'] },
    ],
    keywords: ['expedition backpack, large rucksack, tent trekking', 'Expeditionsrucksack, großer Rucksack'],
  },
  {
    key: 'daybreak-22',
    brand: 'TrailForge',
    category: C.packs,
    name: ['Daybreak 22 day pack', 'Daybreak 22 Tagesrucksack'],
    price: 99,
    short: ['22-litre day pack with a ventilated mesh back', 'Tagesrucksack mit 22 Litern und belüftetem Netzrücken'],
    description: [
      'A 22-litre day pack for summit hikes: a suspended mesh back that keeps the shirt dry, a hydration sleeve, side pockets for bottles and trekking pole loops.',
      'Tagesrucksack mit 22 Litern für Gipfeltouren: ein gespannter Netzrücken, der das Shirt trocken hält, ein Fach für die Trinkblase, Seitentaschen für Flaschen und Stockhalter.',
    ],
    attributes: { weight_g: 820, volume_l: 22, hydration_compatible: true },
    axis: COLOUR,
    variants: [colour('black', 'Black', 'Schwarz'), colour('petrol', 'Petrol', 'Petrol'), colour('red', 'Red', 'Rot')],
    keywords: ['day pack, daypack, hiking pack', 'Tagesrucksack, Wanderrucksack klein'],
  },
  {
    key: 'summit-gtx-boot',
    brand: 'Nordkamm',
    category: C.boots,
    name: ['Summit GTX trekking boot', 'Summit GTX Trekkingstiefel'],
    price: 259,
    short: [
      'Category B leather trekking boot with waterproof membrane',
      'Trekkingstiefel Kategorie B aus Leder mit wasserdichter Membran',
    ],
    description: [
      'A category B trekking boot of nubuck leather with a waterproof membrane and a stiff Vibram sole for multi-day hikes with a heavy pack. Narrow heel, resolable.',
      'Trekkingstiefel der Kategorie B aus Nubukleder mit wasserdichter Membran und steifer Vibram-Sohle für Mehrtagestouren mit schwerem Rucksack. Schmale Ferse, neu besohlbar.',
    ],
    attributes: { weight_g: 1480, category: 'B', upper: 'nubuck leather', membrane: true, sole: 'Vibram' },
    axis: SIZE,
    variants: eu(40, 42, 44, 46),
    keywords: ['hiking boots, waterproof boots, leather boots', 'Wanderschuhe, wasserdichte Stiefel, Lederstiefel'],
  },
  {
    key: 'alpine-pro-boot',
    brand: 'Alpenflug',
    category: C.boots,
    name: ['Alpine Pro mountaineering boot', 'Alpine Pro Bergstiefel'],
    price: 379,
    short: ['Category C boot for semi-automatic crampons', 'Bergstiefel Kategorie C für halbautomatische Steigeisen'],
    description: [
      'A category C mountaineering boot with a crampon welt at the heel, a rubber rand against scree and an insulated lining for glacier tours and high routes. Also in a wide fit.',
      'Bergstiefel der Kategorie C mit Kipphebelaufnahme an der Ferse, umlaufendem Gummirand gegen Geröll und isoliertem Futter für Gletschertouren und Hochtouren. Auch in weiter Passform.',
    ],
    attributes: { weight_g: 1850, category: 'C', crampon_compatible: 'semi-automatic', upper: 'suede and rubber rand' },
    axis: SIZE,
    variants: eu(40, 42, 44, 46),
    keywords: ['mountaineering boots, crampon boots, alpine boots', 'Bergschuhe, Hochtourenstiefel, steigeisenfest'],
  },
  {
    key: 'meadow-low',
    brand: 'Ridgeway',
    category: C.boots,
    name: ['Meadow low hiking shoe', 'Meadow Halbschuh zum Wandern'],
    price: 139,
    short: ['Category A hiking shoe, wide forefoot', 'Wanderhalbschuh Kategorie A, weiter Vorfuß'],
    description: [
      'A light category A hiking shoe for paths and day hikes, with a wide forefoot, a cushioned midsole and a breathable mesh upper for warm days.',
      'Leichter Wanderhalbschuh der Kategorie A für Wege und Tagestouren, mit weitem Vorfuß, gedämpfter Zwischensohle und atmungsaktivem Mesh-Obermaterial für warme Tage.',
    ],
    attributes: { weight_g: 780, category: 'A', upper: 'mesh', membrane: false },
    axis: SIZE,
    variants: eu(39, 41, 43, 45),
    keywords: ['hiking shoes, low hiking shoe, approach shoe', 'Wanderschuh niedrig, Halbschuh'],
  },
  {
    key: 'trailrunner-4',
    brand: 'Ridgeway',
    category: C.trail,
    name: ['Trailrunner 4 trail running shoe', 'Trailrunner 4 Trailrunning-Schuh'],
    price: 149,
    short: [
      'Grippy trail shoe with 5 mm lugs and rock plate',
      'Griffiger Trailschuh mit 5-mm-Stollen und Steinschutzplatte',
    ],
    description: [
      'A trail running shoe with 5 mm lugs for mud and wet rock, a rock plate against sharp stones and a 6 mm drop. Runs about half a size large this season.',
      'Trailrunning-Schuh mit 5-mm-Stollen für Matsch und nassen Fels, einer Steinschutzplatte gegen spitze Steine und 6 mm Sprengung. Fällt in dieser Saison etwa eine halbe Größe größer aus.',
    ],
    attributes: { weight_g: 590, drop_mm: 6, lug_mm: 5, rock_plate: true },
    axis: SIZE,
    variants: eu(40, 42, 44, 46),
    keywords: ['trail running shoes, running shoes for trails', 'Trailschuhe, Laufschuhe Gelände'],
  },
  {
    key: 'stormshell-jacket',
    brand: 'Nordkamm',
    category: C.rain,
    name: ['Stormshell 3-layer rain jacket', 'Stormshell 3-Lagen-Regenjacke'],
    price: 329,
    short: [
      'Waterproof breathable hardshell, 20,000 mm, pit zips',
      'Wasserdichte atmungsaktive Hardshell, 20.000 mm, Achselreißverschlüsse',
    ],
    description: [
      'A 3-layer waterproof and breathable hardshell for storms above the tree line: 20,000 mm, a helmet-compatible hood, pit zips for ventilation and a PFC-free DWR finish.',
      'Wasserdichte und atmungsaktive 3-Lagen-Hardshell für Sturm oberhalb der Baumgrenze: 20.000 mm, helmtaugliche Kapuze, Belüftungsreißverschlüsse unter den Armen und PFC-freie Imprägnierung.',
    ],
    attributes: { weight_g: 420, hydrostatic_head_mm: 20000, layers: 3, pfc_free: true },
    axis: SIZE,
    variants: sizes('S', 'M', 'L', 'XL'),
    keywords: ['rain jacket, hardshell, waterproof jacket', 'Regenjacke, Hardshelljacke, wasserdichte Jacke'],
  },
  {
    key: 'drizzle-jacket',
    brand: 'Summit & Co',
    category: C.rain,
    name: ['Drizzle 2.5-layer packable rain jacket', 'Drizzle 2,5-Lagen-Regenjacke, packbar'],
    price: 119,
    short: ['Light rain jacket that packs into its pocket', 'Leichte Regenjacke, in die eigene Tasche packbar'],
    description: [
      'A light 2.5-layer rain jacket for showers on day hikes and city trips. Packs into its own chest pocket, 10,000 mm, adjustable hood.',
      'Leichte 2,5-Lagen-Regenjacke für Schauer auf Tagestouren und Städtereisen. Lässt sich in die eigene Brusttasche packen, 10.000 mm, verstellbare Kapuze.',
    ],
    attributes: { weight_g: 240, hydrostatic_head_mm: 10000, layers: 2.5, pfc_free: true },
    axis: SIZE,
    variants: sizes('S', 'M', 'L', 'XL'),
    keywords: ['packable rain jacket, light rain jacket', 'leichte Regenjacke, packbare Jacke'],
  },
  {
    key: 'eider-down-jacket',
    brand: 'Alpenflug',
    category: C.down,
    name: ['Eider down jacket', 'Eider Daunenjacke'],
    price: 279,
    short: ['Light 800 fill power down jacket, 290 g', 'Leichte Daunenjacke mit 800 cuin, 290 g'],
    description: [
      'A light down jacket with 100 g of 800 fill power RDS down for cold evenings at camp and belays. Packs into a stuff sack the size of a water bottle.',
      'Leichte Daunenjacke mit 100 g RDS-Daune mit 800 cuin für kalte Abende im Lager und am Standplatz. Lässt sich in einen Packsack von der Größe einer Trinkflasche packen.',
    ],
    attributes: { weight_g: 290, fill: 'duck down 800 cuin', fill_weight_g: 100 },
    axis: SIZE,
    variants: sizes('S', 'M', 'L', 'XL'),
    keywords: ['down jacket, puffer jacket, insulated jacket', 'Daunenjacke, Isolationsjacke'],
  },
  {
    key: 'grid-fleece',
    brand: 'TrailForge',
    category: C.fleece,
    name: ['Grid fleece midlayer', 'Grid Fleece-Midlayer'],
    price: 89,
    short: ['Breathable grid fleece with a half zip', 'Atmungsaktives Gitterfleece mit halbem Reißverschluss'],
    description: [
      'A grid fleece midlayer that breathes when climbing uphill and warms at breaks: light, fast drying, with a half zip and thumb loops.',
      'Gitterfleece als mittlere Schicht, das beim Aufstieg atmet und in der Pause wärmt: leicht, schnell trocknend, mit halbem Reißverschluss und Daumenschlaufen.',
    ],
    attributes: { weight_g: 310, material: 'polyester grid fleece' },
    axis: SIZE,
    variants: sizes('S', 'M', 'L', 'XL'),
    keywords: ['fleece, midlayer, fleece pullover', 'Fleece, Zwischenschicht, Fleecepullover'],
  },
  {
    key: 'merino-150-shirt',
    brand: 'Fjellstad',
    category: C.base,
    name: ['Merino 150 long-sleeve base layer', 'Merino 150 Langarm-Funktionsshirt'],
    price: 79,
    short: ['Merino wool shirt that does not smell', 'Merinowoll-Shirt, das nicht riecht'],
    description: [
      'A long-sleeve base layer of 150 g/m² merino wool: warm when damp, soft on the skin and fresh after several days on the trail.',
      'Langarm-Funktionsshirt aus Merinowolle mit 150 g/m²: warm auch wenn feucht, weich auf der Haut und frisch nach mehreren Tagen unterwegs.',
    ],
    attributes: { weight_g: 180, material: 'merino wool 150 g/m2' },
    axis: SIZE,
    variants: sizes('S', 'M', 'L', 'XL'),
    keywords: ['merino base layer, thermal shirt', 'Merinoshirt, Funktionsunterwäsche'],
  },
  {
    key: 'blaze-stove',
    brand: 'Summit & Co',
    category: C.stoves,
    name: ['Blaze gas canister stove', 'Blaze Gaskartuschenkocher'],
    price: 69,
    short: ['Screw-on gas stove, boils 1 litre in 3.5 minutes', 'Aufschraub-Gaskocher, kocht 1 Liter in 3,5 Minuten'],
    description: [
      'A compact screw-on stove for gas cartridges with a piezo igniter and a wind-shielded burner; boils a litre of water in three and a half minutes.',
      'Kompakter Aufschraubkocher für Gaskartuschen mit Piezozündung und windgeschütztem Brenner; kocht einen Liter Wasser in dreieinhalb Minuten.',
    ],
    attributes: { weight_g: 85, fuel: 'gas cartridge EN 417', boil_time_1l_min: 3.5 },
    axis: ['Edition', 'Ausführung'],
    variants: [
      { code: 'solo', label: ['Stove only', 'Nur Kocher'] },
      { code: 'set', label: ['Set with 0.9 l pot', 'Set mit 0,9-l-Topf'], delta: 30 },
    ],
    keywords: ['camping stove, gas stove, backpacking stove', 'Campingkocher, Gaskocher'],
  },
  {
    key: 'multifuel-stove',
    brand: 'Fjellstad',
    category: C.stoves,
    name: ['Expedition multi-fuel stove', 'Expeditions-Mehrstoffkocher'],
    price: 169,
    short: ['Burns petrol, kerosene and gas', 'Brennt Benzin, Petroleum und Gas'],
    description: [
      'A multi-fuel stove for expeditions and travel far from gas cartridges: burns white gas, petrol, kerosene and gas, with a pump and a service kit.',
      'Mehrstoffkocher für Expeditionen und Reisen fern von Gaskartuschen: brennt Reinbenzin, Benzin, Petroleum und Gas, mit Pumpe und Wartungsset.',
    ],
    attributes: { weight_g: 390, fuel: 'multi-fuel', service_kit: true },
    axis: ['Edition', 'Ausführung'],
    variants: [
      { code: 'stove', label: ['Stove with pump', 'Kocher mit Pumpe'] },
      { code: 'bottle', label: ['With 1 l fuel bottle', 'Mit 1-l-Brennstoffflasche'], delta: 25 },
    ],
    keywords: ['multi fuel stove, petrol stove, expedition stove', 'Benzinkocher, Mehrstoffkocher'],
  },
  {
    key: 'titan-pot',
    brand: 'Summit & Co',
    category: C.cook,
    name: ['Titan pot', 'Titan-Topf'],
    price: 45,
    short: [
      'Titanium pot with lid, fits a gas cartridge inside',
      'Titantopf mit Deckel, eine Gaskartusche passt hinein',
    ],
    description: [
      'A titanium pot with a lid and folding handles; a 100 g gas cartridge and a small stove fit inside.',
      'Topf aus Titan mit Deckel und Klappgriffen; eine 100-g-Gaskartusche und ein kleiner Kocher passen hinein.',
    ],
    attributes: { material: 'titanium' },
    axis: ['Volume', 'Volumen'],
    variants: [
      { code: '750', label: ['0.75 l (105 g)', '0,75 l (105 g)'] },
      { code: '1100', label: ['1.1 l (145 g)', '1,1 l (145 g)'], delta: 12 },
    ],
    keywords: ['titanium pot, camping cookware', 'Titantopf, Campinggeschirr'],
  },
  {
    key: 'beam-400',
    brand: 'TrailForge',
    category: C.lamps,
    name: ['Beam 400 headlamp', 'Beam 400 Stirnlampe'],
    price: 59,
    short: ['400 lumen rechargeable headlamp with red light', 'Aufladbare Stirnlampe mit 400 Lumen und Rotlicht'],
    description: [
      'A rechargeable headlamp with 400 lumen, a red light for the tent and a lock against switching on in the pack; charges over USB-C and runs 6 hours on medium.',
      'Aufladbare Stirnlampe mit 400 Lumen, Rotlicht fürs Zelt und Sperre gegen Einschalten im Rucksack; lädt über USB-C und leuchtet 6 Stunden auf mittlerer Stufe.',
    ],
    attributes: { weight_g: 78, lumen: 400, battery: 'USB-C rechargeable', ip_rating: 'IPX4' },
    axis: COLOUR,
    variants: [colour('black', 'Black', 'Schwarz'), colour('orange', 'Orange', 'Orange')],
    keywords: ['headlamp, head torch', 'Stirnlampe, Kopflampe'],
  },
  {
    key: 'carbon-poles',
    brand: 'Alpenflug',
    category: C.poles,
    name: ['Carbon Z folding trekking poles', 'Carbon Z faltbare Trekkingstöcke'],
    price: 139,
    short: ['Folding carbon poles, 290 g per pair', 'Faltbare Carbonstöcke, 290 g pro Paar'],
    description: [
      'Folding carbon trekking poles that pack to 38 cm: for trail runners and hikers who carry the poles on uphills, and to pitch a trekking-pole tent.',
      'Faltbare Trekkingstöcke aus Carbon mit 38 cm Packmaß: für Trailrunner und Wandernde, die die Stöcke bergauf tragen, und zum Aufbau eines Trekkingstock-Zelts.',
    ],
    attributes: { weight_g_pair: 290, material: 'carbon', packed_cm: 38 },
    axis: LENGTH,
    variants: [
      { code: '110', label: ['110 cm', '110 cm'] },
      { code: '120', label: ['120 cm', '120 cm'] },
      { code: '130', label: ['130 cm', '130 cm'] },
    ],
    keywords: ['trekking poles, hiking poles, walking sticks', 'Wanderstöcke, Trekkingstöcke'],
  },
  {
    key: 'clearflow-filter',
    brand: 'Summit & Co',
    category: C.water,
    name: ['ClearFlow squeeze water filter', 'ClearFlow Quetsch-Wasserfilter'],
    price: 39,
    short: ['Hollow-fibre filter, 0.1 micron, screws onto bottles', 'Hohlfaserfilter, 0,1 Mikron, passt auf Flaschen'],
    description: [
      'A hollow-fibre squeeze filter that removes bacteria and protozoa (0.1 micron) from streams and lakes; screws onto soft bottles and ordinary PET bottles. Does not remove viruses or chemicals.',
      'Hohlfaser-Quetschfilter, der Bakterien und Protozoen (0,1 Mikron) aus Bächen und Seen entfernt; passt auf Softflaschen und normale PET-Flaschen. Entfernt keine Viren oder Chemikalien.',
    ],
    attributes: { weight_g: 85, pore_size_micron: 0.1, litres: 100000 },
    axis: ['Edition', 'Ausführung'],
    variants: [
      { code: 'filter', label: ['Filter only', 'Nur Filter'] },
      { code: 'kit', label: ['With two 1 l soft bottles', 'Mit zwei 1-l-Softflaschen'], delta: 15 },
    ],
    keywords: ['water filter, water purifier, hiking filter', 'Wasserfilter, Trinkwasserfilter'],
  },
];

/** The banner's similar-products anchor: a variant of the Aurora 2 tent, in English. */
export const DEMO_EXAMPLE_PRODUCT = {
  external_id: 'aurora-2-green-en',
  sku: 'NOR-AURORA-2-GREEN',
  title: 'Nordkamm Aurora 2 ultralight dome tent, Forest green',
};

const AVAILABILITY = [
  'in_stock',
  'in_stock',
  'in_stock',
  'low_stock',
  'in_stock',
  'out_of_stock',
  'in_stock',
  'preorder',
];

/** A stable number from a string (availability, ratings and GTINs vary but never change between runs). */
function stable(text: string): number {
  let h = 2166136261;
  for (const ch of text) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return h;
}

function gtin(n: number): string {
  const body = `400${String(n).padStart(9, '0')}`;
  const sum = [...body].reduce((s, d, i) => s + Number(d) * (i % 2 === 0 ? 1 : 3), 0);
  return body + String((10 - (sum % 10)) % 10);
}

const money = (n: number) => Math.round(n * 100) / 100;

/** The whole catalogue: per family and language a parent, then its variants. */
export function demoProducts(): DemoProduct[] {
  const out: DemoProduct[] = [];
  FAMILIES.forEach((f, fi) => {
    const skuBase = `${f.brand.slice(0, 3).toUpperCase()}-${f.key.toUpperCase()}`;
    (['en', 'de'] as Language[]).forEach((language) => {
      const li = language === 'en' ? 0 : 1;
      const base = {
        language,
        brand: f.brand,
        category: f.category[li],
        short_description: f.short[li],
        description: f.description[li],
        currency: 'EUR',
        search_keywords: f.keywords[li].split(', '),
      };
      const parentId = `${f.key}-${language}`;
      out.push({
        ...base,
        external_id: parentId,
        title: `${f.brand} ${f.name[li]}`,
        sku: skuBase,
        is_parent: true,
        attributes: f.attributes,
        properties: { [f.axis[li]]: f.variants.map((v) => v.label[li]) },
        price_current: f.price,
        ...(f.msrp ? { price_msrp: f.msrp } : {}),
        availability: 'in_stock',
        product_url: `https://shop.trailhead.example/${language}/p/${f.key}`,
        image_url: `https://shop.trailhead.example/img/${f.key}.jpg`,
      });
      f.variants.forEach((v, vi) => {
        const externalId = `${f.key}-${v.code}-${language}`;
        const seed = stable(`${f.key}-${v.code}`);
        const rating = 3.6 + (seed % 14) / 10;
        out.push({
          ...base,
          external_id: externalId,
          parent_external_id: parentId,
          is_variant: true,
          title: `${f.brand} ${f.name[li]}, ${v.label[li]}`,
          sku: `${skuBase}-${v.code.toUpperCase()}`,
          gtin: gtin(fi * 100 + vi + 1),
          attributes: { ...f.attributes, [f.axis[0].toLowerCase()]: v.label[0] },
          properties: { [f.axis[li]]: v.label[li] },
          price_current: money(f.price + (v.delta ?? 0)),
          ...(f.msrp ? { price_msrp: money(f.msrp + (v.delta ?? 0)) } : {}),
          availability: AVAILABILITY[seed % AVAILABILITY.length] ?? 'in_stock',
          rating_average: Math.min(5, money(rating)),
          rating_count: 3 + (seed % 180),
          product_url: `https://shop.trailhead.example/${language}/p/${f.key}?v=${v.code}`,
          image_url: `https://shop.trailhead.example/img/${f.key}-${v.code}.jpg`,
        });
      });
    });
  });
  return out;
}
