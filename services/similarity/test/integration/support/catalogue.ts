/**
 * A generated, labelled catalogue: categories of obviously related products in English and German,
 * with variant families (a parent and its colour variants) and standalone products.
 */
import { randomUUID } from 'node:crypto';
import type { ProductDoc } from './similarity';

interface CategoryText {
  noun: string;
  features: string[];
  materials: string[];
}

const CATEGORIES: Record<string, { en: CategoryText; de: CategoryText }> = {
  running_shoes: {
    en: {
      noun: 'running shoe',
      features: [
        'cushioned midsole for long runs',
        'breathable mesh upper',
        'grippy trail outsole',
        'lightweight racing fit',
        'heel drop of 8 mm',
        'reflective details for night jogging',
      ],
      materials: ['mesh', 'foam', 'rubber'],
    },
    de: {
      noun: 'Laufschuh',
      features: [
        'gedämpfte Zwischensohle für lange Läufe',
        'atmungsaktives Obermaterial aus Mesh',
        'griffige Trail-Außensohle',
        'leichte Wettkampf-Passform',
        'Sprengung von 8 mm',
        'reflektierende Details zum Joggen bei Nacht',
      ],
      materials: ['Mesh', 'Schaumstoff', 'Gummi'],
    },
  },
  coffee_machines: {
    en: {
      noun: 'espresso coffee machine',
      features: [
        '15 bar pump pressure',
        'built-in conical burr grinder',
        'milk frother for cappuccino',
        'programmable brew strength',
        'removable water tank',
        'descaling programme',
      ],
      materials: ['stainless steel', 'plastic', 'aluminium'],
    },
    de: {
      noun: 'Kaffeevollautomat',
      features: [
        '15 bar Pumpendruck',
        'integriertes Kegelmahlwerk',
        'Milchaufschäumer für Cappuccino',
        'einstellbare Kaffeestärke',
        'abnehmbarer Wassertank',
        'Entkalkungsprogramm',
      ],
      materials: ['Edelstahl', 'Kunststoff', 'Aluminium'],
    },
  },
  headphones: {
    en: {
      noun: 'wireless headphones',
      features: [
        'active noise cancelling',
        '30 hours of battery life',
        'bluetooth 5.3 connection',
        'over-ear memory foam cushions',
        'built-in microphone for calls',
        'foldable design',
      ],
      materials: ['plastic', 'leather', 'aluminium'],
    },
    de: {
      noun: 'kabellose Kopfhörer',
      features: [
        'aktive Geräuschunterdrückung',
        '30 Stunden Akkulaufzeit',
        'Bluetooth 5.3 Verbindung',
        'Ohrpolster aus Memory-Schaum',
        'eingebautes Mikrofon für Anrufe',
        'faltbares Design',
      ],
      materials: ['Kunststoff', 'Leder', 'Aluminium'],
    },
  },
  office_chairs: {
    en: {
      noun: 'ergonomic office chair',
      features: [
        'adjustable lumbar support',
        'breathable mesh back',
        '4D armrests',
        'synchronous tilt mechanism',
        'height adjustable seat',
        'headrest for long desk work',
      ],
      materials: ['mesh', 'steel', 'fabric'],
    },
    de: {
      noun: 'ergonomischer Bürostuhl',
      features: [
        'verstellbare Lordosenstütze',
        'atmungsaktive Netzrückenlehne',
        '4D-Armlehnen',
        'Synchronmechanik',
        'höhenverstellbarer Sitz',
        'Kopfstütze für lange Schreibtischarbeit',
      ],
      materials: ['Netzstoff', 'Stahl', 'Stoff'],
    },
  },
  tents: {
    en: {
      noun: 'camping tent',
      features: [
        'sleeps two people',
        'waterproof flysheet 3000 mm',
        'quick pitch aluminium poles',
        'vestibule for gear storage',
        'mosquito mesh doors',
        'packs small for backpacking',
      ],
      materials: ['nylon', 'polyester', 'aluminium'],
    },
    de: {
      noun: 'Campingzelt',
      features: [
        'Platz für zwei Personen',
        'wasserdichtes Außenzelt 3000 mm',
        'schneller Aufbau mit Aluminiumstangen',
        'Apsis für Ausrüstung',
        'Moskitonetz an den Türen',
        'kleines Packmaß für Trekking',
      ],
      materials: ['Nylon', 'Polyester', 'Aluminium'],
    },
  },
  kitchen_knives: {
    en: {
      noun: 'chef kitchen knife',
      features: [
        'forged damascus steel blade',
        'razor sharp 20 cm edge',
        'ergonomic wooden handle',
        'full tang balance',
        'for slicing vegetables and meat',
        'comes with a blade guard',
      ],
      materials: ['steel', 'wood', 'carbon steel'],
    },
    de: {
      noun: 'Küchenmesser',
      features: [
        'geschmiedete Damaszener Klinge',
        'rasiermesserscharfe 20 cm Schneide',
        'ergonomischer Holzgriff',
        'durchgehender Erl',
        'zum Schneiden von Gemüse und Fleisch',
        'mit Klingenschutz',
      ],
      materials: ['Stahl', 'Holz', 'Carbonstahl'],
    },
  },
  bicycles: {
    en: {
      noun: 'city bicycle',
      features: [
        'seven speed hub gears',
        'hydraulic disc brakes',
        'aluminium frame with low step-through',
        'integrated lights and mudguards',
        'rear rack for shopping bags',
        '28 inch wheels',
      ],
      materials: ['aluminium', 'steel', 'rubber'],
    },
    de: {
      noun: 'Citybike Fahrrad',
      features: [
        'Siebengang-Nabenschaltung',
        'hydraulische Scheibenbremsen',
        'Aluminiumrahmen mit tiefem Einstieg',
        'integrierte Beleuchtung und Schutzbleche',
        'Gepäckträger für Einkaufstaschen',
        '28 Zoll Laufräder',
      ],
      materials: ['Aluminium', 'Stahl', 'Gummi'],
    },
  },
  watches: {
    en: {
      noun: 'automatic wristwatch',
      features: [
        'self-winding mechanical movement',
        'sapphire crystal glass',
        'water resistant to 100 metres',
        'luminous hands and indices',
        'date window at three o clock',
        'exhibition case back',
      ],
      materials: ['stainless steel', 'leather strap', 'titanium'],
    },
    de: {
      noun: 'Automatikuhr Armbanduhr',
      features: [
        'mechanisches Automatikwerk',
        'Saphirglas',
        'wasserdicht bis 100 Meter',
        'leuchtende Zeiger und Indizes',
        'Datumsfenster bei drei Uhr',
        'Glasboden',
      ],
      materials: ['Edelstahl', 'Lederarmband', 'Titan'],
    },
  },
  vacuum_cleaners: {
    en: {
      noun: 'cordless vacuum cleaner',
      features: [
        'strong cyclone suction',
        '60 minutes runtime',
        'HEPA filter for allergies',
        'motorised brush for carpets',
        'converts to a handheld',
        'wall mounted charging dock',
      ],
      materials: ['plastic', 'aluminium', 'nylon'],
    },
    de: {
      noun: 'Akku-Staubsauger',
      features: [
        'starke Zyklon-Saugleistung',
        '60 Minuten Laufzeit',
        'HEPA-Filter für Allergiker',
        'motorisierte Bürste für Teppiche',
        'wird zum Handstaubsauger',
        'Wandhalterung mit Ladestation',
      ],
      materials: ['Kunststoff', 'Aluminium', 'Nylon'],
    },
  },
  board_games: {
    en: {
      noun: 'strategy board game',
      features: [
        'for two to five players',
        'about 60 minutes per game',
        'wooden meeples and cards',
        'trading and building resources',
        'family friendly from age ten',
        'expansion packs available',
      ],
      materials: ['cardboard', 'wood', 'paper'],
    },
    de: {
      noun: 'Strategie-Brettspiel',
      features: [
        'für zwei bis fünf Spieler',
        'etwa 60 Minuten pro Partie',
        'Holzfiguren und Karten',
        'Handeln und Bauen mit Rohstoffen',
        'familienfreundlich ab zehn Jahren',
        'Erweiterungen erhältlich',
      ],
      materials: ['Karton', 'Holz', 'Papier'],
    },
  },
};

const BRANDS = ['Nordwind', 'Apex', 'Solara', 'Kestrel', 'Vantor', 'Lumen', 'Orbis', 'Tessaro'];
const COLOURS = { en: ['black', 'red', 'blue', 'white'], de: ['schwarz', 'rot', 'blau', 'weiß'] };

export interface CatalogueProduct {
  doc: ProductDoc & { text_description: string; text_properties: string; text_attributes: string };
  category: string;
  family: string;
}

/** Deterministic pseudo-random numbers (mulberry32), so every run sees the same catalogue. */
export function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Per category and language: 2 families (a parent and 3 variants) and 6 standalone products. */
export function generateCatalogue(tenantId: string, sites: [string, string], seed = 7): CatalogueProduct[] {
  const random = rng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
  const picks = <T>(xs: T[], n: number) => [...xs].sort(() => random() - 0.5).slice(0, n);
  const out: CatalogueProduct[] = [];
  let serial = 0;
  for (const [category, langs] of Object.entries(CATEGORIES)) {
    for (const language of ['en', 'de'] as const) {
      const t = langs[language];
      const make = (opts: {
        title: string;
        features: string[];
        colour: string;
        family?: string;
        parent?: string;
        isParent?: boolean;
      }) => {
        serial++;
        const id = randomUUID();
        const brand = opts.title.split(' ')[0]!;
        const material = pick(t.materials);
        const doc: CatalogueProduct['doc'] = {
          id,
          tenant_id: tenantId,
          site_id: sites[serial % 2]!,
          version: 1,
          title: opts.title,
          description: `${opts.title}: ${opts.features.join(', ')}.`,
          brand,
          category: t.noun,
          sku: `SKU-${serial}`,
          language,
          search_keywords: [],
          is_parent: opts.isParent ?? false,
          is_variant: opts.parent !== undefined,
          ...(opts.parent ? { parent_product_id: opts.parent } : {}),
          price_current: (10 + random() * 500).toFixed(2),
          text_description: `${opts.title}. ${t.noun}, ${opts.features.join(', ')}.`,
          text_properties:
            language === 'en'
              ? `colour ${opts.colour}; ${opts.features[0]}`
              : `Farbe ${opts.colour}; ${opts.features[0]}`,
          text_attributes:
            language === 'en' ? `${t.noun} by ${brand}, made of ${material}` : `${t.noun} von ${brand} aus ${material}`,
          reuse_vectors: false,
        };
        out.push({ doc, category, family: opts.family ?? id });
        return id;
      };
      for (let f = 0; f < 2; f++) {
        const title = `${pick(BRANDS)} ${t.noun} ${String.fromCharCode(65 + f)}${Math.floor(random() * 900 + 100)}`;
        const features = picks(t.features, 3);
        const parent = make({ title, features, colour: COLOURS[language][0]!, isParent: true });
        for (const colour of COLOURS[language].slice(1))
          make({ title: `${title} ${colour}`, features, colour, family: parent, parent });
      }
      for (let s = 0; s < 6; s++) {
        const title = `${pick(BRANDS)} ${t.noun} ${Math.floor(random() * 9000 + 1000)}`;
        make({ title, features: picks(t.features, 3), colour: pick(COLOURS[language]) });
      }
    }
  }
  return out;
}
