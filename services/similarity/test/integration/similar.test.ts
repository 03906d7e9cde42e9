/**
 * Similar-product search on a generated labelled catalogue (English and German, variant
 * families) with the real model: obvious neighbours first, every filter, collapse, min_score,
 * explain, and recall@10 of the kNN search against an exact brute-force cosine ranking.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import type { similarityV1 } from '@kb/platform';
import { MAX_CANDIDATES } from '@kb/search';
import { caller, dot, ELASTICSEARCH_URL, failure, product, startSimilarity, type Harness } from './support/similarity';
import { generateCatalogue, rng, type CatalogueProduct } from './support/catalogue';

let h: Harness;
const tenant = `t-${randomUUID()}`;
const other = `t-${randomUUID()}`;
const sites: [string, string] = [randomUUID(), randomUUID()];
let catalogue: CatalogueProduct[];
const byId = new Map<string, CatalogueProduct>();
type Field = 'description' | 'properties' | 'attributes';
const FIELDS: Field[] = ['description', 'properties', 'attributes'];
/** The test's own copy of every product vector, from the Embed RPC. */
const vectors = new Map<string, Record<Field, number[]>>();
let foreignIds: string[];

const similar = (req: Partial<similarityV1.SimilarProductsRequest>) =>
  h.client.call('SimilarProducts', {
    caller: caller(tenant, { scopes: ['knowledge:read'] }),
    vector_field: 'description',
    limit: 10,
    ...req,
  });

async function embedAll(texts: string[]): Promise<number[][]> {
  const out: number[][] = [];
  for (let i = 0; i < texts.length; i += 256) {
    const res = await h.client.call('Embed', { caller: caller(tenant), texts: texts.slice(i, i + 256) });
    out.push(...res.vectors.map((v) => v.values as number[]));
  }
  return out;
}

beforeAll(async () => {
  h = await startSimilarity();
  catalogue = generateCatalogue(tenant, sites);
  for (const p of catalogue) byId.set(p.doc.id, p);
  const res = await h.client.call('IndexProducts', { caller: caller(tenant), products: catalogue.map((p) => p.doc) });
  expect(res.results.every((r) => r.status === 'indexed')).toBe(true);
  // The same texts under another tenant: they must never show up.
  const foreign = catalogue.slice(0, 40).map((p) => ({ ...p.doc, id: randomUUID(), tenant_id: other }));
  foreignIds = foreign.map((p) => p.id);
  await h.client.call('IndexProducts', { caller: caller(other), products: foreign });
  const texts = catalogue.flatMap((p) => [p.doc.text_description!, p.doc.text_properties!, p.doc.text_attributes!]);
  const embedded = await embedAll(texts);
  catalogue.forEach((p, i) =>
    vectors.set(p.doc.id, {
      description: embedded[3 * i]!,
      properties: embedded[3 * i + 1]!,
      attributes: embedded[3 * i + 2]!,
    }),
  );
}, 120_000);
afterAll(() => h?.stop());

function unit(v: number[]): number[] {
  const n = Math.sqrt(dot(v, v));
  return v.map((x) => x / n);
}
function testCentroid(ids: string[], weights: number[], field: Field): number[] {
  const sum = new Array<number>(384).fill(0);
  ids.forEach((id, i) => unit(vectors.get(id)![field]).forEach((x, d) => (sum[d]! += weights[i]! * x)));
  return unit(sum);
}
/** Exact ranking: every product of the tenant but the anchors, with the same filters. */
function bruteForce(
  ids: string[],
  weights: number[],
  fieldWeights: Partial<Record<Field, number>>,
  filter: (p: CatalogueProduct) => boolean,
  k: number,
): string[] {
  const total = Object.values(fieldWeights).reduce((a, b) => a + b!, 0);
  const centroids = Object.keys(fieldWeights).map(
    (f) => [f as Field, testCentroid(ids, weights, f as Field), fieldWeights[f as Field]! / total] as const,
  );
  return catalogue
    .filter((p) => !ids.includes(p.doc.id) && filter(p))
    .map((p) => ({
      id: p.doc.id,
      score: centroids.reduce((s, [f, c, w]) => s + w * dot(c, unit(vectors.get(p.doc.id)![f])), 0),
    }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k)
    .map((x) => x.id);
}

const standalone = (category: string, language: string) =>
  catalogue.filter(
    (p) => p.category === category && p.doc.language === language && !p.doc.is_parent && !p.doc.is_variant,
  );
const categories = () => [...new Set(catalogue.map((p) => p.category))];

describe('similar products: neighbours', () => {
  test('when a product is the anchor, then its top 5 neighbours in its language are of the same category', async () => {
    let same = 0;
    let total = 0;
    for (const category of categories()) {
      for (const language of ['en', 'de']) {
        const anchor = standalone(category, language)[0]!;
        const res = await similar({ anchor_product_ids: [anchor.doc.id], limit: 5, language });
        expect(res.hits).toHaveLength(5);
        for (const hit of res.hits) {
          total++;
          if (byId.get(hit.id)!.category === category) same++;
        }
      }
    }
    expect(same / total).toBeGreaterThanOrEqual(0.95);
  });

  test('when a variant is the anchor, then its siblings and parent rank first', async () => {
    const variant = catalogue.find((p) => p.doc.is_variant)!;
    const res = await similar({ anchor_product_ids: [variant.doc.id], limit: 3 });
    expect(res.hits.map((x) => byId.get(x.id)!.family)).toEqual([variant.family, variant.family, variant.family]);
    expect(res.anchor_product_ids).toEqual([variant.doc.id]);
    expect(res.vector_field).toBe('description');
  });

  test('when several anchors of two categories are given, then hits come from those categories', async () => {
    const a = standalone('tents', 'en')[0]!;
    const b = standalone('bicycles', 'en')[0]!;
    const res = await similar({ anchor_product_ids: [a.doc.id, b.doc.id], limit: 8, language: 'en' });
    for (const hit of res.hits) expect([a.category, b.category]).toContain(byId.get(hit.id)!.category);
    expect(res.anchor_product_ids).toEqual([a.doc.id, b.doc.id]);
  });

  test('when anchor weights favour one anchor, then the hits lean to its category', async () => {
    const a = standalone('watches', 'en')[0]!;
    const b = standalone('headphones', 'en')[0]!;
    const res = await similar({
      anchor_product_ids: [a.doc.id, b.doc.id],
      anchor_weights: [10, 1],
      limit: 5,
      language: 'en',
    });
    expect(res.hits.filter((x) => byId.get(x.id)!.category === 'watches').length).toBeGreaterThanOrEqual(4);
  });

  test('when products of another tenant are as close as can be, then they never appear', async () => {
    const anchor = catalogue[0]!;
    const res = await similar({ anchor_product_ids: [anchor.doc.id], limit: 50 });
    for (const hit of res.hits) expect(foreignIds).not.toContain(hit.id);
    expect(res.hits.every((x) => byId.has(x.id))).toBe(true);
  });
});

describe('similar products: filters', () => {
  const anchor = () => standalone('coffee_machines', 'en')[0]!;

  test('when site_id is given, then every hit is of that site', async () => {
    const res = await similar({ anchor_product_ids: [anchor().doc.id], site_id: sites[1], limit: 20 });
    expect(res.hits).toHaveLength(20);
    for (const hit of res.hits) expect(byId.get(hit.id)!.doc.site_id).toBe(sites[1]);
  });

  test('when language is given, then every hit is in that language', async () => {
    const res = await similar({ anchor_product_ids: [anchor().doc.id], language: 'de', limit: 20 });
    expect(res.hits).toHaveLength(20);
    for (const hit of res.hits) expect(byId.get(hit.id)!.doc.language).toBe('de');
  });

  test('when products are excluded, then neither they nor the anchors appear', async () => {
    const first = await similar({ anchor_product_ids: [anchor().doc.id], limit: 10 });
    const excluded = first.hits.slice(0, 3).map((x) => x.id);
    const res = await similar({ anchor_product_ids: [anchor().doc.id], exclude_product_ids: excluded, limit: 10 });
    const ids = res.hits.map((x) => x.id);
    for (const id of [...excluded, anchor().doc.id]) expect(ids).not.toContain(id);
    expect(ids.slice(0, 7)).toEqual(first.hits.slice(3).map((x) => x.id));
  });

  test('when parents are excluded, then no parent appears (and one did without the filter)', async () => {
    const variant = catalogue.find((p) => p.doc.is_variant)!;
    const plain = await similar({ anchor_product_ids: [variant.doc.id], limit: 10 });
    expect(plain.hits.some((x) => byId.get(x.id)!.doc.is_parent)).toBe(true);
    const res = await similar({ anchor_product_ids: [variant.doc.id], limit: 10, exclude_parents: true });
    expect(res.hits).toHaveLength(10);
    expect(res.hits.some((x) => byId.get(x.id)!.doc.is_parent)).toBe(false);
  });

  test('when variants are collapsed, then each family appears once and the limit is still met', async () => {
    const variant = catalogue.find((p) => p.doc.is_variant)!;
    const res = await similar({ anchor_product_ids: [variant.doc.id], limit: 20, collapse_variants: true });
    expect(res.hits).toHaveLength(20);
    const families = res.hits.map((x) => byId.get(x.id)!.family);
    expect(new Set(families).size).toBe(20);
    const plain = await similar({ anchor_product_ids: [variant.doc.id], limit: 20 });
    expect(new Set(plain.hits.map((x) => byId.get(x.id)!.family)).size).toBeLessThan(20);
  });

  test('when min_score is given, then every hit scores at least that and lower ones are dropped', async () => {
    const plain = await similar({ anchor_product_ids: [anchor().doc.id], limit: 20 });
    const threshold = plain.hits[5]!.score;
    const res = await similar({ anchor_product_ids: [anchor().doc.id], limit: 20, min_score: threshold });
    expect(res.hits.length).toBeGreaterThanOrEqual(6);
    expect(res.hits.length).toBeLessThan(20);
    for (const hit of res.hits) expect(hit.score).toBeGreaterThanOrEqual(threshold);
  });
});

describe('similar products: scores and explain', () => {
  test('when one field is searched, then score is the exact cosine to the centroid and equals its score source', async () => {
    const anchors = standalone('tents', 'de')
      .slice(0, 2)
      .map((p) => p.doc.id);
    const res = await similar({ anchor_product_ids: anchors, limit: 5 });
    const c = testCentroid(anchors, [1, 1], 'description');
    for (const hit of res.hits) {
      expect(hit.score).toBeCloseTo(dot(c, unit(vectors.get(hit.id)!.description)), 4);
      expect(hit.score_sources).toEqual({ description: hit.score });
    }
  });

  test('when hybrid is asked, then score_sources hold each weighted field cosine and score is their sum', async () => {
    const anchor = standalone('bicycles', 'en')[1]!.doc.id;
    const res = await similar({
      anchor_product_ids: [anchor],
      vector_field: 'hybrid',
      weights: { description: 0.5, properties: 0.3, attributes: 0.2 },
      limit: 5,
    });
    expect(res.vector_field).toBe('hybrid');
    for (const hit of res.hits) {
      const v = vectors.get(hit.id)!;
      const expected = {
        description: 0.5 * dot(unit(vectors.get(anchor)!.description), unit(v.description)),
        properties: 0.3 * dot(unit(vectors.get(anchor)!.properties), unit(v.properties)),
        attributes: 0.2 * dot(unit(vectors.get(anchor)!.attributes), unit(v.attributes)),
      };
      for (const f of FIELDS) expect(hit.score_sources[f]).toBeCloseTo(expected[f], 4);
      expect(hit.score).toBeCloseTo(expected.description + expected.properties + expected.attributes, 4);
    }
    const scores = res.hits.map((x) => x.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  test('when explain is asked, then each hit says why and filtered_json counts what each filter removed', async () => {
    const variant = catalogue.find((p) => p.doc.is_variant && p.doc.language === 'en')!;
    const top = await similar({ anchor_product_ids: [variant.doc.id], limit: 10 });
    const excluded = top.hits
      .filter((x) => !byId.get(x.id)!.doc.is_parent)
      .slice(0, 2)
      .map((x) => x.id);
    const res = await similar({
      anchor_product_ids: [variant.doc.id],
      exclude_product_ids: excluded,
      language: 'en',
      site_id: sites[0],
      exclude_parents: true,
      collapse_variants: true,
      min_score: 0.3,
      limit: 5,
      explain: true,
    });
    const filtered = JSON.parse(res.filtered_json) as Record<string, number>;
    expect(Object.keys(filtered).sort()).toEqual(
      ['anchor', 'collapsed', 'excluded', 'language', 'min_score', 'parent', 'site'].sort(),
    );
    expect(filtered['anchor']).toBe(1);
    expect(filtered['excluded']).toBe(2);
    expect(filtered['site']).toBeGreaterThan(0);
    expect(filtered['language']).toBeGreaterThan(0);
    expect(filtered['min_score']).toBeGreaterThan(0);
    expect(Object.values(filtered).every((n) => Number.isInteger(n) && n >= 0)).toBe(true);
    expect(res.hits.length).toBeGreaterThan(0);
    res.hits.forEach((hit, i) => {
      const why = JSON.parse(hit.explanation_json) as {
        fields: Record<string, { cosine: number; weight: number; contribution: number; rank: number }>;
      };
      expect(why.fields['description']!.cosine).toBeCloseTo(hit.score, 6);
      expect(why.fields['description']!.weight).toBe(1);
      expect(why.fields['description']!.contribution).toBeCloseTo(hit.score, 6);
      expect(why.fields['description']!.rank).toBeGreaterThanOrEqual(i + 1);
    });
    const plain = await similar({ anchor_product_ids: [variant.doc.id], limit: 5 });
    expect(plain.filtered_json).toBe('');
    expect(plain.hits[0]!.explanation_json).toBe('');
  });

  test('when collapse drops family members, then explain counts them', async () => {
    const variant = catalogue.find((p) => p.doc.is_variant)!;
    const res = await similar({
      anchor_product_ids: [variant.doc.id],
      collapse_variants: true,
      limit: 5,
      explain: true,
    });
    expect(JSON.parse(res.filtered_json)['collapsed']).toBeGreaterThan(0);
  });
});

describe('similar products: anchors and bad input', () => {
  test('when no anchor has vectors for the field, then NOT_FOUND names the field; anchors that have them are used', async () => {
    const bare = randomUUID();
    await h.client.call('IndexProducts', {
      caller: caller(tenant),
      products: [product({ id: bare, tenant_id: tenant, site_id: 'elsewhere', text_properties: '' })],
    });
    const err = await failure(similar({ anchor_product_ids: [bare], vector_field: 'properties' }));
    expect(err.kind).toBe('not_found');
    expect(err.message).toBe('No anchor product has vectors for properties');
    const withOne = catalogue[0]!.doc.id;
    const res = await similar({ anchor_product_ids: [bare, withOne], vector_field: 'properties', limit: 3 });
    expect(res.anchor_product_ids).toEqual([withOne]);
  });

  test('when the anchors belong to another tenant or do not exist, then it is NOT_FOUND', async () => {
    expect((await failure(similar({ anchor_product_ids: [foreignIds[0]!] }))).kind).toBe('not_found');
    expect((await failure(similar({ anchor_product_ids: [randomUUID()] }))).kind).toBe('not_found');
  });

  test('when vector_field, limit or weights are out of range, then it is INVALID_ARGUMENT', async () => {
    const id = catalogue[0]!.doc.id;
    for (const bad of [
      { vector_field: 'title' },
      { vector_field: '' },
      { limit: 51 },
      { limit: -1 },
      { anchor_weights: [1, 2] },
      { anchor_weights: [-1] },
      { anchor_product_ids: [] },
    ]) {
      expect((await failure(similar({ anchor_product_ids: [id], ...bad }))).kind).toBe('invalid');
    }
  });

  test('when limit is 0, then the default of 8 applies', async () => {
    expect((await similar({ anchor_product_ids: [catalogue[0]!.doc.id], limit: 0 })).hits).toHaveLength(8);
  });

  test('when the caller has no tenant or no read scope, then the search is refused', async () => {
    const req = { anchor_product_ids: [catalogue[0]!.doc.id], vector_field: 'description', limit: 5 };
    expect(
      (
        await failure(
          h.client.call('SimilarProducts', { ...req, caller: { tenant_id: '', scopes: ['knowledge:read'] } }),
        )
      ).kind,
    ).toBe('unauthenticated');
    expect(
      (
        await failure(
          h.client.call('SimilarProducts', { ...req, caller: caller(tenant, { scopes: ['knowledge:write'] }) }),
        )
      ).kind,
    ).toBe('forbidden');
  });
});

describe('similar products: bounds on the work and the answer', () => {
  /** Shard queries the products index has answered so far. */
  async function kNNRounds(): Promise<number> {
    const es = new Client({ node: ELASTICSEARCH_URL() });
    try {
      const stats = await es.indices.stats({ index: h.server.indices.alias('products'), metric: 'search' });
      // Every copy's queries: with replicas (a cluster) a search runs on whichever copy of a shard is chosen.
      return stats._all.total?.search?.query_total ?? 0;
    } finally {
      await es.close();
    }
  }
  async function queriesOf(req: Partial<similarityV1.SimilarProductsRequest>) {
    const before = await kNNRounds();
    const res = await similar(req);
    return { res, queries: (await kNNRounds()) - before };
  }
  /** kNN rounds of a request: its shard queries over those of a plain search (one round, whatever ES counts per round). */
  async function roundsOf(req: Partial<similarityV1.SimilarProductsRequest>) {
    const { queries: perRound } = await queriesOf({ anchor_product_ids: [catalogue[1]!.doc.id], limit: 10 });
    expect(perRound).toBeGreaterThan(0);
    const { res, queries } = await queriesOf(req);
    return { res, rounds: queries / perRound };
  }

  test('when min_score is outside the cosine scale [-1, 1] or not a number, then it is INVALID_ARGUMENT naming min_score', async () => {
    const id = catalogue[0]!.doc.id;
    for (const min_score of [1.0001, -1.5, 1e308, Number.NaN, Number.POSITIVE_INFINITY]) {
      const err = await failure(similar({ anchor_product_ids: [id], min_score }));
      expect(err.kind).toBe('invalid');
      expect(err.issues?.[0]?.loc).toEqual(['min_score']);
    }
    for (const min_score of [-1, 1]) {
      const res = await similar({ anchor_product_ids: [id], min_score });
      for (const hit of res.hits) expect(hit.score).toBeGreaterThanOrEqual(min_score);
    }
  });

  test('when min_score is above what any product outside the first round can score, then one kNN round answers', async () => {
    const anchorId = catalogue[0]!.doc.id;
    for (const vector_field of ['description', 'hybrid']) {
      const { res, rounds } = await roundsOf({
        anchor_product_ids: [anchorId],
        vector_field,
        limit: 50,
        min_score: 0.999,
      });
      expect(rounds).toBe(1);
      for (const hit of res.hits) expect(hit.score).toBeGreaterThanOrEqual(0.999);
    }
  });

  test('when collapsing leaves fewer families than the limit, then widening stops at MAX_CANDIDATES', async () => {
    const variant = catalogue.find((p) => p.doc.is_variant)!;
    const { res, rounds } = await roundsOf({
      anchor_product_ids: [variant.doc.id],
      limit: 50,
      collapse_variants: true,
      min_score: -1,
      explain: true,
    });
    // 250 → 500 candidates, and the tenant-only pass of explain at the last size.
    expect(rounds).toBeLessThanOrEqual(3);
    expect(Number.isInteger(rounds)).toBe(true);
    expect(res.hits.length).toBeLessThanOrEqual(50);
    // The explain answer is bounded too: a fixed set of counters, one small object per hit.
    const filtered = JSON.parse(res.filtered_json) as Record<string, number>;
    expect(Object.keys(filtered)).toHaveLength(7);
    expect(filtered['collapsed']! + filtered['min_score']! + res.hits.length).toBeLessThanOrEqual(MAX_CANDIDATES);
    for (const hit of res.hits) expect(hit.explanation_json.length).toBeLessThan(1000);
  });

  test('when more products are excluded than the bound, then it is INVALID_ARGUMENT and nothing is searched', async () => {
    const before = await kNNRounds();
    const exclude_product_ids = Array.from({ length: 1101 }, () => randomUUID());
    const err = await failure(similar({ anchor_product_ids: [catalogue[0]!.doc.id], exclude_product_ids }));
    expect(err.kind).toBe('invalid');
    expect(await kNNRounds()).toBe(before);
  });
});

describe('similar products: recall against brute force', () => {
  test(
    'when many anchor sets are searched at default settings, then ' +
      'recall@10 against the exact cosine ranking is at least 0.95',
    async () => {
      const random = rng(42);
      const recalls: number[] = [];
      const hybridRecalls: number[] = [];
      for (let run = 0; run < 80; run++) {
        const n = 1 + Math.floor(random() * 3);
        const anchors = [
          ...new Set(Array.from({ length: n }, () => catalogue[Math.floor(random() * catalogue.length)]!.doc.id)),
        ];
        const weights = run % 3 === 0 ? anchors.map(() => 0.5 + random()) : anchors.map(() => 1);
        const language = run % 2 === 0 ? 'en' : undefined;
        const hybrid = run % 4 === 3;
        const fieldWeights: Partial<Record<Field, number>> = hybrid
          ? { description: 0.5, properties: 0.3, attributes: 0.2 }
          : { description: 1 };
        const expected = bruteForce(
          anchors,
          weights,
          fieldWeights,
          (p) => !language || p.doc.language === language,
          10,
        );
        const res = await similar({
          anchor_product_ids: anchors,
          anchor_weights: run % 3 === 0 ? weights : [],
          vector_field: hybrid ? 'hybrid' : 'description',
          ...(hybrid ? { weights: { description: 0.5, properties: 0.3, attributes: 0.2 } } : {}),
          ...(language ? { language } : {}),
          limit: 10,
        });
        const got = new Set(res.hits.map((x) => x.id));
        const recall = expected.filter((id) => got.has(id)).length / expected.length;
        (hybrid ? hybridRecalls : recalls).push(recall);
      }
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      console.log(
        `similar products recall@10 vs brute force: single field ${mean(recalls).toFixed(4)} ` +
          `over ${recalls.length} anchor sets, hybrid ${mean(hybridRecalls).toFixed(4)} ` +
          `over ${hybridRecalls.length} (catalogue of ${catalogue.length} products)`,
      );
      expect(mean(recalls)).toBeGreaterThanOrEqual(0.95);
      expect(mean(hybridRecalls)).toBeGreaterThanOrEqual(0.95);
    },
  );
});
