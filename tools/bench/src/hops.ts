/** Where a similar search's time goes, hop by hop, from the traces of a few requests. */
import { randomBytes } from 'node:crypto';
import type { Ctx } from './context';
import { median } from './load';
import { log } from './log';
import type { Report } from './report';
import { anchorSets } from './similar-rows';
import { breakdown, type Span, type SpanReceiver } from './spans';
import { tracingOn } from './tracing';

/** Traced requests whose per-hop times are reported (their medians: one request alone is noise). */
const TRACED = 25;

/** TRACED similar searches, each traced, after 20 untraced ones: their median time per hop. */
export async function tracedHops(ctx: Ctx, receiver: SpanReceiver): Promise<NonNullable<Report['hops']>> {
  log(`${TRACED} traced similar searches, per hop`);
  // A client's sampled traceparent is only a wish (issue 23): the services sample every trace
  // here, so each of these requests is traced.
  await ctx.stack.startServices({ ...tracingOn(receiver), OTEL_TRACES_SAMPLER: 'parentbased_always_on' });
  for (const anchors of anchorSets(ctx, 20, 1, 98))
    await ctx.api.post('/search/similar', { anchor_product_ids: anchors });
  const traced: string[] = [];
  for (const anchors of anchorSets(ctx, TRACED, 1, 99)) {
    const traceId = randomHex(16);
    traced.push(traceId);
    await ctx.api.post(
      '/search/similar',
      { anchor_product_ids: anchors, limit: 10, vector_field: 'description' },
      { traceparent: `00-${traceId}-${randomHex(8)}-01` },
    );
  }
  await new Promise((r) => setTimeout(r, 5000));
  return medianBreakdown(traced.map((id) => receiver.trace(id)));
}

function medianBreakdown(traces: Span[][]): {
  total: number;
  hops: { hop: string; ms: number }[];
  spans: number;
  traces: number;
} {
  const each = traces.filter((t) => t.length > 0).map((t) => breakdown(t));
  const names = [...new Set(each.flatMap((b) => b.hops.map((h) => h.hop)))];
  const hops = names
    .map((hop) => ({ hop, ms: median(each.map((b) => b.hops.find((h) => h.hop === hop)?.ms ?? 0)) }))
    .sort((a, b) => b.ms - a.ms);
  return {
    total: median(each.map((b) => b.total)),
    hops,
    spans: median(traces.map((t) => t.length)),
    traces: each.length,
  };
}

function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}
