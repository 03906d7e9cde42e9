/** Product and entry search through the gateway against the raw searches the read path sends. */
import {
  DEFAULT_PASSAGES,
  fusionCandidates,
  entryFilter,
  entryMatches,
  entrySearchBodies,
  PRODUCT_SEARCH,
  queryStems,
  queryTermGroups,
  SEMANTIC,
} from '@kb/search';
import { entryQueries, productQueries } from './catalogue';
import type { Ctx } from './context';
import { closedLoop, latencyFigures, pairedRounds } from './load';
import { log } from './log';
import { BareSession } from './onnx';
import { rawHybrid } from './raw';
import { writeReport, type Report, type SearchRow } from './report';
import { TENANT } from './stack';

const ADMIN_VISIBLE = ['public', 'community', 'internal', 'restricted', 'workspace'];

/**
 * Product or entry search through the gateway against the raw searches with the same query
 * vector. Entry search's raw side is the multi-search the read path sends (keyword, passage kNN
 * and sentence kNN, built by the same library); the read of the hits' kept fields that follows it
 * in the gateway counts as the service's own cost.
 */
export async function searchRow(
  ctx: Ctx,
  kind: 'products' | 'entries',
  queries: string[],
  vectors: Float32Array[],
  userId: string,
): Promise<SearchRow> {
  const entryBodies = (i: number) => {
    const query = queries[i % queries.length]!;
    return entrySearchBodies({
      query,
      stems: queryStems(query, undefined),
      termGroups: queryTermGroups(query, undefined),
      size: fusionCandidates(10),
      passagesPerHit: DEFAULT_PASSAGES + 2,
      reading: SEMANTIC.passageChoice,
      filter: entryFilter(TENANT, {
        visibility: {
          visibilities: ADMIN_VISIBLE,
          owner_user_id: `user:${userId}`,
          workspace_scoped: false,
          workspace_ids: [],
        },
        types: [],
      }),
      queryVector: vectors[i % queries.length]!,
    });
  };
  const raw = async (i: number) => {
    if (kind === 'entries') {
      await entryMatches(ctx.es, ctx.index.entries, entryBodies(i));
      return;
    }
    await rawHybrid(ctx.es, {
      index: ctx.index.products,
      query: queries[i % queries.length]!,
      vector: Array.from(vectors[i % queries.length]!),
      filter: { bool: { filter: [{ term: { tenant_id: TENANT } }], must_not: [] } },
      textFields: PRODUCT_SEARCH.textFields,
      vectorField: PRODUCT_SEARCH.vectorField,
      exactFields: PRODUCT_SEARCH.exactFields,
      // The read path reads each product hit's kept fields with the ids.
      sourceFields: ['hit'],
      limit: 10,
    });
  };
  const service = (i: number) => ctx.api.post(`/search/${kind}`, { query: queries[i % queries.length]!, limit: 10 });
  // Each query once first, so the service's query-embedding cache is as warm as the raw side's precomputed vectors.
  for (let i = 0; i < queries.length; i++) await service(i);
  const rounds = await pairedRounds(ctx.settings.queries, { service, raw });
  return {
    what: `${kind === 'products' ? 'product' : 'entry'} search`,
    service: latencyFigures(rounds.service),
    raw: latencyFigures(rounds.raw),
    service8: await closedLoop(8, ctx.settings.seconds, service),
    raw8: await closedLoop(8, ctx.settings.seconds, raw),
  };
}

/** Product and entry search against their raw queries (query vectors from a bare session); the product queries. */
export async function searchRows(ctx: Ctx, report: Report): Promise<string[]> {
  const bare = await BareSession.open(ctx.stack.model);
  const pq = productQueries(50);
  const eq = entryQueries(50);
  const pv = await bare.embed(pq, 1);
  const ev = await bare.embed(eq, 1);
  await bare.close();
  const userId = (await ctx.api.call<{ user_id?: string }>('GET', '/me').catch(() => ({ user_id: '' }))).user_id ?? '';
  log('product search');
  report.rows.push(await searchRow(ctx, 'products', pq, pv, userId));
  log('entry search');
  report.rows.push(await searchRow(ctx, 'entries', eq, ev, userId));
  writeReport(report, ctx.settings.out);
  return pq;
}
