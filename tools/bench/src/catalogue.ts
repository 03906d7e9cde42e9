/**
 * A reproducible catalogue and knowledge base for the benchmark: the same seed gives the same
 * products, entries and queries on every machine. Products come in two languages (en, de), one
 * in ten is a parent with two to four variants, and each has the three embedded texts
 * (description, properties, attributes) built by the catalog from its fields. The words are in
 * tools/bench/data/catalogue-words.json.
 */
import { CATALOGUE_WORDS } from './data';

/** mulberry32: a small seeded generator, so runs compare. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rnd: () => number, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

const {
  kinds: KINDS,
  traits: TRAITS,
  uses: USES,
  colours: COLOURS,
  materials: MATERIALS,
  sizes: SIZES,
  brands: BRANDS,
  categories: CATEGORIES,
  availability: AVAILABILITY,
  entry_topics: ENTRY_TOPICS,
  entry_asks: ENTRY_ASKS,
} = CATALOGUE_WORDS;

export type Language = 'en' | 'de';

export interface BenchProduct {
  external_id: string;
  title: string;
  language: Language;
  description: string;
  short_description: string;
  sku: string;
  gtin: string;
  brand: string;
  category: string;
  attributes: Record<string, string>;
  properties: Record<string, string | number>;
  price_current: number;
  availability: string;
  search_keywords: string[];
  is_parent?: boolean;
  is_variant?: boolean;
  parent_external_id?: string;
}

/** Product `i` of the catalogue (the same for every caller): parents every tenth slot, followed by their variants. */
export function catalogue(count: number, seed = 42): BenchProduct[] {
  const rnd = seededRandom(seed);
  const out: BenchProduct[] = [];
  while (out.length < count) {
    const i = out.length;
    const language: Language = rnd() < 0.5 ? 'en' : 'de';
    const kind = Math.floor(rnd() * KINDS.en.length);
    const brand = pick(rnd, BRANDS);
    const traits = Array.from({ length: 2 + Math.floor(rnd() * 3) }, () => pick(rnd, TRAITS[language]));
    const use = pick(rnd, USES[language]);
    const material = pick(rnd, MATERIALS);
    const colour = pick(rnd, COLOURS);
    const name = `${brand} ${KINDS[language][kind]} ${100 + Math.floor(rnd() * 900)}`;
    const description =
      language === 'en'
        ? `The ${name} is ${traits.join(', ')} and made ${use}. ` +
          `Crafted from ${material} in ${colour}, it comes with free shipping and 30-day returns.`
        : `Der ${name} ist ${traits.join(', ')} und gemacht ${use}. ` +
          `Aus ${material} in ${colour}, mit kostenlosem Versand und 30 Tagen Rückgaberecht.`;
    const base: BenchProduct = {
      external_id: `bench-${i}`,
      title: name,
      language,
      description,
      short_description: `${name}, ${traits[0]}`,
      sku: `SKU-${String(i).padStart(6, '0')}`,
      gtin: String(4000000000000 + i),
      brand,
      category: CATEGORIES[kind % CATEGORIES.length]!,
      attributes: { colour, material },
      properties: { weight_g: 100 + Math.floor(rnd() * 4900), warranty_years: 1 + Math.floor(rnd() * 3), use },
      price_current: Math.round((5 + rnd() * 495) * 100) / 100,
      availability: pick(rnd, AVAILABILITY),
      search_keywords: [KINDS.en[kind]!, material, colour],
    };
    if (i % 10 === 0 && count - i >= 3) {
      // A parent and its variants (size and colour differ, the rest is the parent's).
      out.push({ ...base, is_parent: true });
      const variants = Math.min(2 + Math.floor(rnd() * 3), count - i - 1);
      for (let v = 1; v <= variants; v++) {
        const size = SIZES[v % SIZES.length]!;
        const vColour = pick(rnd, COLOURS);
        out.push({
          ...base,
          external_id: `bench-${i + v}`,
          title: `${name} ${size} ${vColour}`,
          sku: `SKU-${String(i + v).padStart(6, '0')}`,
          gtin: String(4000000000000 + i + v),
          attributes: { colour: vColour, material, size },
          is_variant: true,
          parent_external_id: base.external_id,
        });
      }
    } else {
      out.push(base);
    }
  }
  return out.slice(0, count);
}

export interface BenchEntry {
  title: string;
  content: string;
  summary: string;
  language: Language;
  tags: string[];
}

/** `count` FAQ-like knowledge entries over the same product world. */
export function entries(count: number, seed = 7): BenchEntry[] {
  const rnd = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => {
    const kind = pick(rnd, KINDS.en);
    const topic = pick(rnd, ENTRY_TOPICS);
    const trait = pick(rnd, TRAITS.en);
    return {
      title: `${topic[0]!.toUpperCase()}${topic.slice(1)} for ${kind} #${i}`,
      summary: `How ${topic} works for ${kind}s.`,
      content:
        `Customers often ask about ${topic} for ${kind}s. Our ${kind}s are ${trait}; ` +
        `${pick(rnd, USES.en)} they need little maintenance. ` +
        `${pick(rnd, BRANDS)} offers ${topic} support within ${1 + Math.floor(rnd() * 30)} days of purchase.`,
      language: 'en',
      tags: [topic, kind],
    };
  });
}

/** Search queries a shopper or an agent might type, drawn from the same words. */
export function productQueries(count: number, seed = 11): string[] {
  const rnd = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const language: Language = rnd() < 0.5 ? 'en' : 'de';
    return `${pick(rnd, TRAITS[language])} ${pick(rnd, KINDS[language])}`;
  });
}

export function entryQueries(count: number, seed = 13): string[] {
  const rnd = seededRandom(seed);
  return Array.from({ length: count }, () => `${pick(rnd, ENTRY_ASKS)} ${pick(rnd, KINDS.en)}`);
}
