/** What every measurement of a run works on: the stack, a client of its gateway and of raw Elasticsearch, the shop. */
import { Api } from './http';
import { aliases, rawClient } from './raw';
import type { BenchSettings } from './settings';
import { INDEX_PREFIX, type BenchStack } from './stack';

export interface Ctx {
  stack: BenchStack;
  api: Api;
  es: ReturnType<typeof rawClient>;
  index: { products: string; entries: string; embeddings: string };
  siteId: string;
  /** The products loaded so far. */
  ids: string[];
  settings: BenchSettings;
}

/** An admin's client of the running services and the shop the products go into. */
export async function openContext(stack: BenchStack, settings: BenchSettings): Promise<Ctx> {
  // Every call to the next gateway in turn (one replica: the gateway), whichever run the services are in.
  const api = new Api(() => stack.gatewayUrls(), await stack.token('Admin'));
  try {
    const es = rawClient(stack.backends.elasticsearchUrl);
    const site = await api.post<{ id: string }>('/sites', { slug: 'bench-shop', name: 'Bench shop', language: 'en' });
    return { stack, api, es, index: aliases(stack.model, INDEX_PREFIX), siteId: site.id, ids: [], settings };
  } catch (err) {
    await api.close();
    throw err;
  }
}
