/**
 * Elasticsearch "up" is the health of the install's own indices, not the cluster's: another
 * install's red index (another prefix) on the same cluster marks nothing down; a red index of
 * this install's prefix marks the similarity service's `dependency:elasticsearch` and the
 * gateway's read-path watch down (the searches they serve answer 503), and they are up again once
 * it is gone. A red index here is one whose only shard may be allocated on no node.
 */
import { startStack, uniqueId, type Stack } from '../support/stack';
import { elasticsearchNode } from '../support/elasticsearch-node';

const ES = elasticsearchNode();
const tenant = uniqueId('health');
const otherPrefix = uniqueId('other');
let stack: Stack;
let token: string;

/** A red index: one primary that no node may hold. */
async function createRedIndex(index: string): Promise<void> {
  const res = await fetch(`${ES}/${index}?wait_for_active_shards=0`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      settings: {
        'index.number_of_shards': 1,
        'index.number_of_replicas': 0,
        'index.routing.allocation.require._name': 'no-such-node',
      },
    }),
  });
  expect(res.status).toBe(200);
}

const deleteIndex = (index: string) => fetch(`${ES}/${index}`, { method: 'DELETE' });
const readyz = () => stack.request(tenant, '/readyz');

async function until(ok: () => Promise<boolean>, ms = 15_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await ok()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return ok();
}

beforeAll(async () => {
  stack = await startStack();
  token = await stack.tenantWithToken(tenant);
});

afterAll(async () => {
  await deleteIndex(`${otherPrefix}-products-red`);
  await deleteIndex(`${stack.indexPrefix}-products-red`);
  await stack?.stop();
});

const searchStatus = async () =>
  (
    await stack.request(tenant, '/api/knowledge/search/products', {
      method: 'POST',
      token,
      body: { query: 'lantern', language: 'en' },
    })
  ).status;

test("when another install's index is red, then this install's Elasticsearch checks stay up and search answers", async () => {
  await createRedIndex(`${otherPrefix}-products-red`);
  const cluster = (await (await fetch(`${ES}/_cluster/health`)).json()) as { status: string };
  expect(cluster.status).toBe('red');
  // Several probes (every 0.25 s) have seen the red cluster by now.
  await new Promise((r) => setTimeout(r, 1_500));
  const res = await readyz();
  expect(res.status).toBe(200);
  expect(res.json.checks).toMatchObject({ 'similarity.elasticsearch': 'up', 'gateway.elasticsearch': 'up' });
  expect(await searchStatus()).toBe(200);
  await deleteIndex(`${otherPrefix}-products-red`);
});

test("when one of this install's own indices is red, then its Elasticsearch checks are down until it is gone", async () => {
  const own = `${stack.indexPrefix}-products-red`;
  await createRedIndex(own);
  const down = await until(async () => {
    const { json } = await readyz();
    return json?.checks?.['similarity.elasticsearch'] === 'down' && json?.checks?.['gateway.elasticsearch'] === 'down';
  });
  expect(down).toBe(true);
  const res = await readyz();
  expect(res.status).toBe(200); // readiness is the pod's own: degraded, not out of service
  expect(res.json.status).toBe('degraded');
  expect(await searchStatus()).toBe(503);

  await deleteIndex(own);
  const up = await until(async () => (await readyz()).json?.status === 'ready');
  expect(up).toBe(true);
  expect(await searchStatus()).toBe(200);
});
