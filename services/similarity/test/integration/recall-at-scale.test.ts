/**
 * Recall of the similar-products kNN at a size where HNSW approximates (5,000 products), against
 * an exact brute-force ranking. Vectors are synthetic (clusters around random centres, like
 * product categories) and written straight into the products alias, so the test does not spend
 * a minute embedding texts; the search path is the real SimilarProducts RPC.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import { caller, dot, ELASTICSEARCH_URL, startSimilarity, type Harness } from './support/similarity';
import { rng } from './support/catalogue';

const PRODUCTS = 5000;
const CLUSTERS = 60;
const SETS = 40;

let h: Harness;
let es: Client;
const tenant = `t-${randomUUID()}`;
const docs: { id: string; language: string; vector: number[] }[] = [];

const unit = (v: number[]) => {
  const n = Math.sqrt(dot(v, v));
  return v.map((x) => x / n);
};

beforeAll(async () => {
  h = await startSimilarity();
  es = new Client({ node: ELASTICSEARCH_URL() });
  const dims = h.server.embedder.dims;
  const random = rng(99);
  const gauss = () => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
  const centres = Array.from({ length: CLUSTERS }, () => unit(Array.from({ length: dims }, gauss)));
  for (let i = 0; i < PRODUCTS; i++) {
    const centre = centres[i % CLUSTERS]!;
    const spread = 0.6 + random() * 0.6;
    // 9 significant digits: the float32 Elasticsearch keeps, in half the JSON.
    docs.push({
      id: randomUUID(),
      language: i % 2 ? 'de' : 'en',
      vector: unit(centre.map((c) => c + (spread * gauss()) / Math.sqrt(dims))).map((x) =>
        Number(Math.fround(x).toPrecision(9)),
      ),
    });
  }
  await h.server.indices.ensure('products');
  const index = h.server.indices.alias('products');
  for (let i = 0; i < docs.length; i += 1000) {
    const operations = docs.slice(i, i + 1000).flatMap((d) => [
      { index: { _index: index, _id: d.id, version: 1, version_type: 'external' as const } },
      {
        tenant_id: tenant,
        site_id: 's',
        language: d.language,
        title: 'p',
        search_keywords: [],
        is_parent: false,
        is_variant: false,
        version: 1,
        vector_description: d.vector,
      },
    ]);
    const res = await es.bulk({ operations });
    expect(res.errors).toBe(false);
  }
  await es.indices.refresh({ index });
}, 120_000);
afterAll(async () => {
  await h?.stop();
  await es?.close();
});

test('when 5,000 products are indexed, then recall@10 of similar search against brute force is at least 0.95', async () => {
  const random = rng(5);
  const recalls: number[] = [];
  for (let run = 0; run < SETS; run++) {
    const anchors = Array.from({ length: 1 + (run % 3) }, () => docs[Math.floor(random() * docs.length)]!);
    const language = run % 2 ? 'de' : undefined;
    const sum = new Array<number>(anchors[0]!.vector.length).fill(0);
    for (const a of anchors) a.vector.forEach((x, i) => (sum[i]! += x));
    const centroid = unit(sum);
    const ids = new Set(anchors.map((a) => a.id));
    const expected = docs
      .filter((d) => !ids.has(d.id) && (!language || d.language === language))
      .map((d) => ({ id: d.id, score: dot(centroid, d.vector) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 10)
      .map((x) => x.id);
    const res = await h.client.call('SimilarProducts', {
      caller: caller(tenant),
      anchor_product_ids: [...ids],
      vector_field: 'description',
      limit: 10,
      ...(language ? { language } : {}),
    });
    const got = new Set(res.hits.map((x) => x.id));
    recalls.push(expected.filter((id) => got.has(id)).length / 10);
  }
  const mean = recalls.reduce((a, b) => a + b, 0) / recalls.length;
  console.log(
    `similar products recall@10 vs brute force at ${PRODUCTS} products (synthetic clustered vectors): ` +
      `${mean.toFixed(4)} over ${SETS} anchor sets`,
  );
  expect(mean).toBeGreaterThanOrEqual(0.95);
});
