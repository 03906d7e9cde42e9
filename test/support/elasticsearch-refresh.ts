import type { Client } from '@elastic/elasticsearch';

/**
 * Resolves once no refresh is running or queued on the Elasticsearch nodes (at most 5 s).
 * Elasticsearch answers a `refresh_interval` change with one more refresh of its own, run on its
 * refresh threads after acknowledging: a test that sets `-1` and then checks that a write is not
 * yet searchable waits for this first, or that refresh may make the write searchable.
 */
export async function refreshThreadsIdle(es: Client): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    const stats = await es.nodes.stats({ metric: 'thread_pool' });
    const busy = Object.values(stats.nodes).some((n) => {
      const pool = n.thread_pool?.['refresh'];
      return (pool?.active ?? 0) + (pool?.queue ?? 0) > 0;
    });
    if (!busy) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}
