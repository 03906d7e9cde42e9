/**
 * The demo data's own consistency, without a backend: keys unique and stable, every reference
 * (category, translation source, variant parent) resolvable in the order the seeder writes, and
 * the banner's question and example product present.
 */
import { DEMO_ANSWER_SNIPPET, DEMO_CATEGORIES, DEMO_ENTRIES, DEMO_EXAMPLE_PRODUCT, DEMO_NOTES } from '../src/demo/data';
import { demoProducts } from '../src/demo/products';

test('when the categories are created in order, then every parent exists before its children', () => {
  const seen = new Set<string>();
  for (const c of DEMO_CATEGORIES) {
    if (c.parent) expect(seen.has(c.parent)).toBe(true);
    expect(seen.has(c.key)).toBe(false);
    seen.add(c.key);
  }
  expect(DEMO_CATEGORIES.filter((c) => c.parent).length).toBeGreaterThanOrEqual(4);
});

test('when entries and notes are keyed, then keys are unique, categories known, every German entry translates an English one', () => {
  const categories = new Set(DEMO_CATEGORIES.map((c) => c.key));
  const keys = [...DEMO_ENTRIES, ...DEMO_NOTES].map((e) => e.key);
  expect(new Set(keys).size).toBe(keys.length);
  const byKey = new Map(DEMO_ENTRIES.map((e) => [e.key, e]));
  for (const e of [...DEMO_ENTRIES, ...DEMO_NOTES]) expect(categories.has(e.category)).toBe(true);
  for (const e of DEMO_ENTRIES) {
    if (e.language === 'de') expect(e.translation_of).toBeDefined();
    if (!e.translation_of) continue;
    const source = byKey.get(e.translation_of);
    expect(source).toMatchObject({ language: 'en', type: e.type });
    expect(source!.translation_of).toBeUndefined();
  }
  for (const e of DEMO_ENTRIES.filter((x) => x.type === 'skill'))
    expect(typeof e.metadata?.trigger_description).toBe('string');
  for (const e of DEMO_ENTRIES.filter((x) => x.type === 'process'))
    expect((e.metadata?.steps as unknown[]).length).toBeGreaterThan(0);
  const returns = byKey.get('returns-policy/en')!.content;
  const at = returns.indexOf(DEMO_ANSWER_SNIPPET);
  expect(at).toBeGreaterThan(returns.length / 5);
  expect(at).toBeLessThan((returns.length * 4) / 5);
});

test('when the catalogue is generated, then 200+ products in two languages, unique external ids, parents before variants', () => {
  const products = demoProducts();
  expect(products.length).toBeGreaterThanOrEqual(200);
  expect(new Set(products.map((p) => p.external_id)).size).toBe(products.length);
  expect(new Set(products.map((p) => p.language))).toEqual(new Set(['en', 'de']));
  const seen = new Set<string>();
  for (const p of products) {
    if (p.parent_external_id) expect(seen.has(p.parent_external_id as string)).toBe(true);
    expect(p.price_current as number).toBeGreaterThan(0);
    seen.add(p.external_id);
  }
  expect(products.find((p) => p.external_id === DEMO_EXAMPLE_PRODUCT.external_id)).toMatchObject({
    sku: DEMO_EXAMPLE_PRODUCT.sku,
    title: DEMO_EXAMPLE_PRODUCT.title,
    is_variant: true,
  });
  // Generated the same way every time: the upsert by external_id finds "unchanged" products.
  expect(demoProducts()).toEqual(products);
});
