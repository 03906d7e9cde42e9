/**
 * The Elasticsearch half of docs/operations.md, "Backup and restore", drilled: a snapshot of the
 * install's indices (entries, products, the embedding cache) in a filesystem repository on the
 * node, the indices lost, restored from the snapshot with their aliases, and the searches answer
 * as before. The repository lives under the node's `path.repo` (the test backends set one:
 * tools/devstack); a node without one (an Elasticsearch given by URL) cannot run the drill, and
 * the test says so.
 */
import { createElasticsearchClient } from '@kb/search';
import { startStack, uniqueId, type Stack } from '../support/stack';

let stack: Stack;
let token: string;
const tenant = uniqueId('snapshot');
const es = createElasticsearchClient(process.env.ELASTICSEARCH_URL as string);

/** The first `path.repo` of any node, if one is set. */
async function snapshotPath(): Promise<string | undefined> {
  const res = await es.nodes.info({ metric: 'settings', filter_path: 'nodes.*.settings.path.repo' });
  for (const node of Object.values((res.nodes ?? {}) as Record<string, { settings?: { path?: { repo?: unknown } } }>)) {
    const repo = node.settings?.path?.repo;
    if (typeof repo === 'string') return repo;
    if (Array.isArray(repo) && typeof repo[0] === 'string') return repo[0];
  }
  return undefined;
}

const searchEntries = async () =>
  (
    (
      await stack.request(tenant, '/api/knowledge/search/entries', {
        method: 'POST',
        token,
        body: { query: 'How long do parcels to Switzerland take?', limit: 3 },
      })
    ).json as { entry: { id: string } }[]
  ).map((h) => h.entry.id);

const similar = async (anchor: string) =>
  (
    await stack.request(tenant, '/api/knowledge/search/similar', {
      method: 'POST',
      token,
      body: { anchor_product_ids: [anchor], limit: 3 },
    })
  ).json as { products?: { id: string; score: number }[] };

beforeAll(async () => {
  stack = await startStack();
  token = await stack.tenantWithToken(tenant, 'Admin');
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await es.close();
});

test('when the indices are lost and restored from a filesystem snapshot, then entry and similar search answer as before', async () => {
  const repoPath = await snapshotPath();
  if (!repoPath) {
    console.warn('snapshot drill not run: the Elasticsearch node has no path.repo (it was given by ELASTICSEARCH_URL)');
    return;
  }
  const category = await stack.request(tenant, '/api/knowledge/categories', {
    method: 'POST',
    token,
    body: { name: 'Help' },
  });
  for (const [title, content] of [
    ['Shipping to Switzerland', 'Parcels to Switzerland take three to five working days.'],
    ['Returns', 'Unused gear can be returned within 30 days.'],
  ] as const) {
    const res = await stack.request(tenant, '/api/knowledge/knowledge-entries', {
      method: 'POST',
      token,
      body: { title, content, category_id: category.json.id, visibility: 'internal', language: 'en' },
    });
    await stack.entryIndexed(tenant, res.json.id, token);
  }
  await stack.request(tenant, '/api/knowledge/sites', { method: 'POST', token, body: { slug: 'shop', name: 'Shop' } });
  const bulk = await stack.request(tenant, '/api/knowledge/products/bulk?site_id=shop', {
    method: 'POST',
    token,
    body: {
      products: [
        { external_id: 'tent-2', title: 'Tent for two', description: 'Light tent for two' },
        { external_id: 'tent-3', title: 'Tent for three', description: 'Roomy tent for three' },
        { external_id: 'stove', title: 'Camping stove', description: 'Gas stove' },
      ].map((p) => ({ language: 'en', ...p })),
    },
  });
  const anchor = bulk.json.results[0].id as string;
  const entriesBefore = await searchEntries();
  const similarBefore = await similar(anchor);
  expect(entriesBefore.length).toBeGreaterThan(0);
  expect(similarBefore.products?.length).toBeGreaterThan(0);

  // The repository (a folder under path.repo) and one snapshot of the install's indices, aliases included.
  const repository = uniqueId('repo');
  const snapshot = 'drill';
  const indices = `${stack.indexPrefix}-*`;
  await es.snapshot.createRepository({
    name: repository,
    repository: { type: 'fs', settings: { location: repository } },
  });
  const taken = await es.snapshot.create({
    repository,
    snapshot,
    indices,
    include_global_state: false,
    wait_for_completion: true,
  });
  expect(taken.snapshot?.state).toBe('SUCCESS');

  // The loss: every index of the install gone.
  // (By name: the cluster refuses a delete by wildcard, action.destructive_requires_name.)
  const names = (await es.cat.indices({ index: indices, h: 'index', format: 'json' })).flatMap((i) =>
    i.index ? [i.index] : [],
  );
  expect(names.length).toBeGreaterThanOrEqual(3); // entries, products, the embedding cache
  await es.indices.delete({ index: names });
  expect(
    (
      await stack.request(tenant, '/api/knowledge/search/entries', {
        method: 'POST',
        token,
        body: { query: 'parcels' },
      })
    ).status,
  ).not.toBe(200);

  const restored = await es.snapshot.restore({
    repository,
    snapshot,
    indices,
    include_aliases: true,
    wait_for_completion: true,
  });
  expect(restored.snapshot?.shards.failed).toBe(0);
  await es.cluster.health({ index: indices, wait_for_status: 'yellow', timeout: '30s' });

  expect(await searchEntries()).toEqual(entriesBefore);
  expect(await similar(anchor)).toEqual(similarBefore);
  await es.snapshot.delete({ repository, snapshot });
  await es.snapshot.deleteRepository({ name: repository });
}, 180_000);
