/** Similar search through the gateway against its raw kNN twin: latency, overlap, recall, throughput. */
import { PRODUCT_VECTOR_FIELDS, productVectorPath, type ProductVectorField } from '@kb/search';
import { seededRandom } from './catalogue';
import type { Ctx } from './context';
import { esOps, opsPer } from './es-stats';
import { closedLoop, latencyFigures, pairedRounds } from './load';
import { log } from './log';
import { bruteForce, centroid, overlap, rawSimilar, similarFilter } from './raw';
import type { SimilarRowResult } from './report';
import { TENANT } from './stack';
import { cpuOf, perRequest } from './usage';

/** Reads the anchors' vectors once (not timed) and builds the raw twin of a similar search. */
export async function similarCase(ctx: Ctx, anchors: string[], mode: ProductVectorField | 'hybrid') {
  const res = await ctx.es.mget<Record<string, number[]>>(
    {
      index: ctx.index.products,
      ids: anchors,
      _source_includes: PRODUCT_VECTOR_FIELDS.map(productVectorPath),
    },
    { querystring: { _source_exclude_vectors: false } },
  );
  const docs = res.docs.map((d) => ('_source' in d ? d._source : undefined) ?? {});
  const fields = mode === 'hybrid' ? [...PRODUCT_VECTOR_FIELDS] : [mode];
  const centroids = new Map<ProductVectorField, number[]>();
  for (const f of fields) {
    const vs = docs.map((d) => d[`vector_${f}`]).filter((v): v is number[] => Array.isArray(v));
    if (vs.length) centroids.set(f, centroid(vs));
  }
  const k = fields.length > 1 ? 30 : 10;
  const filter = similarFilter(TENANT, anchors);
  const weights = new Map([...centroids.keys()].map((f) => [f, 1 / centroids.size]));
  return {
    body: { anchor_product_ids: anchors, limit: 10, vector_field: mode },
    raw: () => rawSimilar(ctx.es, ctx.index.products, centroids, k, filter),
    centroids,
    weights,
  };
}

export function anchorSets(ctx: Ctx, count: number, perQuery: number, seed = 1): string[][] {
  // A seeded shuffle, each query's anchors the next ones in it (a pass further shifted by one), so
  // no two queries ask the same question. (Until 2026-11-27 an LCG in doubles lost precision and
  // repeated: 300 draws named ~120 distinct products.)
  const ids = [...ctx.ids].sort();
  const random = seededRandom(seed);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  const per = Math.min(perQuery, ids.length);
  return Array.from({ length: count }, (_, q) => {
    const start = q * per + Math.floor((q * per) / ids.length);
    return Array.from({ length: per }, (_, k) => ids[(start + k) % ids.length]!);
  });
}

export async function similarRow(
  ctx: Ctx,
  mode: ProductVectorField | 'hybrid',
  anchorsPerQuery: number,
  options: { throughput: boolean; recallOf?: Map<string, Record<ProductVectorField, number[]>>; sameAnchors?: boolean },
): Promise<SimilarRowResult> {
  const { queries, seconds } = ctx.settings;
  const seed = anchorsPerQuery * 7 + (mode === 'hybrid' ? 3 : 0);
  // Different anchors per query (most seen for the first time), or one set asked about every time.
  const sets = options.sameAnchors
    ? Array.from({ length: queries }, () => anchorSets(ctx, 1, anchorsPerQuery, seed + 1)[0]!)
    : anchorSets(ctx, queries, anchorsPerQuery, seed);
  const cases = await Promise.all(sets.map((a) => similarCase(ctx, a, mode)));
  const got: string[][] = [];
  const rawIds: string[][] = [];
  const rounds = await pairedRounds(queries, {
    service: async (i) => {
      got[i] = (await ctx.api.post<{ products: { id: string }[] }>('/search/similar', cases[i]!.body)).products.map(
        (p) => p.id,
      );
    },
    raw: async (i) => {
      rawIds[i] = (await cases[i]!.raw()).slice(0, 10);
    },
  });
  const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
  const row: SimilarRowResult = {
    what: `similar ${mode}, ${anchorsPerQuery} anchor${anchorsPerQuery > 1 ? 's' : ''}${options.sameAnchors ? ', the same each time' : ''}`,
    service: latencyFigures(rounds.service),
    raw: latencyFigures(rounds.raw),
    overlap: mean(got.map((g, i) => overlap(g, rawIds[i]!))),
  };
  const all = options.recallOf;
  if (all) {
    const exact = cases.map((c) => bruteForce(all, c.centroids, c.weights, new Set(c.body.anchor_product_ids), 10));
    row.recall = mean(got.map((g, i) => overlap(g, exact[i]!)));
    row.rawRecall = mean(rawIds.map((g, i) => overlap(g, exact[i]!)));
  }
  if (options.throughput) {
    const before = cpuOf(ctx);
    const opsBefore = await esOps(ctx);
    row.service8 = await closedLoop(8, seconds, (i) => ctx.api.post('/search/similar', cases[i % cases.length]!.body));
    const between = cpuOf(ctx);
    const opsBetween = await esOps(ctx);
    row.raw8 = await closedLoop(8, seconds, (i) => cases[i % cases.length]!.raw());
    const opsAfter = await esOps(ctx);
    log(
      `  Elasticsearch work per search, 8 clients: through the gateway ${opsPer(opsBefore, opsBetween, row.service8.count)}; ` +
        `raw ${opsPer(opsBetween, opsAfter, row.raw8.count)}`,
    );
    row.cpuPerRequest = {
      service: perRequest(before, between, row.service8.count),
      raw: perRequest(between, cpuOf(ctx), row.raw8.count),
    };
    row.service1 = await closedLoop(1, seconds, (i) => ctx.api.post('/search/similar', cases[i % cases.length]!.body));
    row.raw1 = await closedLoop(1, seconds, (i) => cases[i % cases.length]!.raw());
  }
  return row;
}
