import { join } from 'node:path';
import type { Ctx } from './context';
import { closedLoop } from './load';
import { log } from './log';
import { summariseDir } from './profiles';
import type { Report } from './report';
import { anchorSets, similarCase } from './similar-rows';
import type { SpanReceiver } from './spans';
import { tracingOn } from './tracing';

/** CPU profiles of the services under 8 clients of similar search, then product search (BENCH_PROFILE=1). */
export async function profileSearches(
  ctx: Ctx,
  report: Report,
  receiver: SpanReceiver,
  nodeArgs: () => string[],
  pq: string[],
): Promise<void> {
  log('CPU profiles: similar search, then product search, 8 clients, with the services under --cpu-prof');
  await ctx.stack.startServices(tracingOn(receiver), nodeArgs);
  const cases = await Promise.all(anchorSets(ctx, 100, 1, 5).map((a) => similarCase(ctx, a, 'description')));
  await closedLoop(8, 20, (i) => ctx.api.post('/search/similar', cases[i % cases.length]!.body));
  await closedLoop(8, 10, (i) => ctx.api.post('/search/products', { query: pq[i % pq.length]!, limit: 10 }));
  const pids = Object.fromEntries(ctx.stack.services!.children.map((c) => [c.name, c.pgid]));
  await ctx.stack.startServices(tracingOn(receiver));
  report.profiles = summariseDir(join(ctx.settings.out, 'profiles'), pids);
}
