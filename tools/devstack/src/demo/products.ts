/**
 * The demo catalogue, generated from the product families of tools/devstack/demo/products.json: a
 * family (a parent product) × its variants (size, colour, length…), each in English and German. A
 * variant differs from its siblings only by its variant value and price, so similar search finds
 * the family first.
 */
import { readDemoJson } from './data';
import type { DemoProduct, Language } from './types';

/** A text in both languages, or one text that reads the same in both ("M", "EU 42", "Sand"). */
type Localised = string | Record<Language, string>;

interface Variant {
  code: string;
  label: Localised;
  /** Added to the family price. */
  delta?: number;
}

interface Family {
  key: string;
  brand: string;
  /** A key of the catalogue's categories. */
  category: string;
  name: Localised;
  price: number;
  msrp?: number;
  short: Localised;
  description: Localised;
  /** Language-neutral facts (numbers, materials, norms). */
  attributes: Record<string, string | number | boolean>;
  /** What the variant axis is called. */
  axis: Localised;
  variants: Variant[];
  keywords: Record<Language, string[]>;
}

interface Catalogue {
  /** Bumped when the catalogue changes: the next start writes it again (upserts by external_id). */
  version: number;
  categories: Record<string, Record<Language, string>>;
  families: Family[];
}

const CATALOGUE = readDemoJson<Catalogue>('products.json');

/** The catalogue's data version: the site's `config.demo_products` records the one written. */
export const DEMO_PRODUCTS_VERSION = CATALOGUE.version;

const inLanguage = (value: Localised, language: Language) => (typeof value === 'string' ? value : value[language]);

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
  CATALOGUE.families.forEach((f, fi) => {
    const skuBase = `${f.brand.slice(0, 3).toUpperCase()}-${f.key.toUpperCase()}`;
    const category = CATALOGUE.categories[f.category];
    if (!category) throw new Error(`products.json: family ${f.key} has an unknown category ${f.category}`);
    (['en', 'de'] as Language[]).forEach((language) => {
      const base = {
        language,
        brand: f.brand,
        category: category[language],
        short_description: inLanguage(f.short, language),
        description: inLanguage(f.description, language),
        currency: 'EUR',
        search_keywords: [...f.keywords[language]],
      };
      const name = inLanguage(f.name, language);
      const axis = inLanguage(f.axis, language);
      const parentId = `${f.key}-${language}`;
      out.push({
        ...base,
        external_id: parentId,
        title: `${f.brand} ${name}`,
        sku: skuBase,
        is_parent: true,
        attributes: f.attributes,
        properties: { [axis]: f.variants.map((v) => inLanguage(v.label, language)) },
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
        const label = inLanguage(v.label, language);
        out.push({
          ...base,
          external_id: externalId,
          parent_external_id: parentId,
          is_variant: true,
          title: `${f.brand} ${name}, ${label}`,
          sku: `${skuBase}-${v.code.toUpperCase()}`,
          gtin: gtin(fi * 100 + vi + 1),
          // Attributes are language-neutral: the variant value under the English axis name.
          attributes: { ...f.attributes, [inLanguage(f.axis, 'en').toLowerCase()]: inLanguage(v.label, 'en') },
          properties: { [axis]: label },
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
