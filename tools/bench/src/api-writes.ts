/** What the benchmark writes through the gateway (products in bulk or one by one, entries), each timed until indexed. */
import { entries, type BenchProduct } from './catalogue';
import type { Ctx } from './context';
import { median } from './load';
import { log } from './log';
import type { Report } from './report';
import { TENANT } from './stack';

/**
 * Products per bulk call, two calls in flight; a call answered 5xx (a deadline under load) is sent
 * again, up to 3 times (upserts by external id are idempotent).
 */
export const BULK = 250;

let bulkRetries = 0;

/** Bulk calls sent again so far in this run. */
export const bulkRetryCount = () => bulkRetries;

export async function ingest(
  ctx: Ctx,
  products: BenchProduct[],
): Promise<{ seconds: number; perSecond: number; texts: number }> {
  const t0 = performance.now();
  // Two bulk calls in flight: one writes while the other's texts are embedded.
  let next = 0;
  const ids: string[] = [];
  await Promise.all(
    [0, 1].map(async () => {
      for (let i = next; i < products.length; i = next) {
        next += BULK;
        const res = await bulkWithRetry(ctx, products.slice(i, i + BULK));
        for (const r of res.results) {
          if (r.status === 'error') throw new Error(`product ${i + r.index} refused: ${JSON.stringify(r)}`);
          ids[i + r.index] = r.id;
        }
      }
    }),
  );
  await waitIndexed(ctx, ids);
  const seconds = (performance.now() - t0) / 1000;
  ctx.ids = [...new Set([...ctx.ids, ...ids])];
  return { seconds, perSecond: products.length / seconds, texts: products.length * 3 };
}

/**
 * The same kind of products one upsert each (`POST /products`), `inFlight` at a time: how a shop
 * that syncs product by product writes. Each upsert answers once its product is searchable, so
 * the figure is answered upserts per second; p50 is one upsert's time.
 */
export async function ingestSingly(
  ctx: Ctx,
  products: BenchProduct[],
  inFlight: number,
): Promise<{ seconds: number; perSecond: number; p50Ms: number }> {
  const t0 = performance.now();
  const ids: string[] = [];
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let i = next++; i < products.length; i = next++) {
        const started = performance.now();
        ids[i] = (await ctx.api.post<{ id: string }>(`/products?site_id=${ctx.siteId}`, products[i])).id;
        times.push(performance.now() - started);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  await waitIndexed(ctx, ids);
  ctx.ids = [...new Set([...ctx.ids, ...ids])];
  return { seconds, perSecond: products.length / seconds, p50Ms: median(times) };
}

async function bulkWithRetry(
  ctx: Ctx,
  products: BenchProduct[],
): Promise<{ results: { status: string; id: string; index: number }[] }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.api.post(`/products/bulk?site_id=${ctx.siteId}`, { products });
    } catch (err) {
      if (attempt >= 5 || !/: 5\d\d /.test((err as Error).message)) throw err;
      bulkRetries++;
      log(`  a bulk call failed (${(err as Error).message.slice(0, 120)}); sending it again`);
      // 2, 4, 8, 16 s: the local MongoDB stand-in, saturated past ~50,000 products, recovers within seconds.
      await new Promise((r) => setTimeout(r, 2000 * 2 ** (attempt - 1)));
    }
  }
}

/**
 * Until every id is in the index at its latest version: the catalog's backlog is empty, then a
 * refresh shows them all. The backlog (a MongoDB count) is polled first: a forced refresh every
 * 200 ms while products stream in would cut Elasticsearch's segments five times smaller than its
 * own 1 s refresh does, and its merges (HNSW graphs rebuilt) would be the benchmark's doing.
 */
async function waitIndexed(ctx: Ctx, ids: string[]): Promise<void> {
  const deadline = Date.now() + 30 * 60_000;
  const known = new Set(ctx.ids);
  const expected = known.size + new Set(ids.filter((id) => !known.has(id))).size;
  while (Date.now() < deadline) {
    if ((await ctx.stack.backlog()) === 0) {
      await ctx.es.indices.refresh({ index: ctx.index.products });
      const { count } = await ctx.es.count({ index: ctx.index.products, query: { term: { tenant_id: TENANT } } });
      if (count >= expected) return;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('products were not indexed within 30 minutes');
}

/** BENCH_ENTRIES knowledge entries through the API, four in flight, timed until indexed. */
export async function loadEntries(ctx: Ctx, report: Report): Promise<void> {
  const count = ctx.settings.entries;
  log(`writing ${count} knowledge entries`);
  const category = await ctx.api.post<{ id: string }>('/categories', { name: 'Bench FAQ' });
  const t0 = performance.now();
  const list = entries(count);
  let next = 0;
  await Promise.all(
    [0, 1, 2, 3].map(async () => {
      while (next < list.length) {
        const e = list[next++]!;
        await ctx.api.post('/knowledge-entries', { ...e, category_id: category.id, visibility: 'internal' });
      }
    }),
  );
  while ((await ctx.stack.backlog()) > 0) await new Promise((r) => setTimeout(r, 200));
  report.ingest.entries = { entries: count, perSecond: count / ((performance.now() - t0) / 1000) };
}
