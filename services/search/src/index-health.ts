import type { Client, estypes } from '@elastic/elasticsearch';

/**
 * The index patterns of one install's indices (its ELASTICSEARCH_INDEX_PREFIX): every model's
 * products, entries and embedding-cache indices, reindex targets included. Another install's or
 * test run's indices on the same cluster never match (installs sharing a cluster differ in prefix).
 */
export function ownIndexPatterns(
  prefix: string,
  kinds: readonly string[] = ['products', 'entries', 'embeddings'],
): string[] {
  return kinds.map((kind) => `${prefix}-${kind}-*`);
}

/**
 * Whether the indices of a health answer (`level: indices`) can serve: none red. Yellow (a replica
 * missing, e.g. while a lost node's copies are rebuilt elsewhere) serves every search and write.
 * The overall `status` is not read: on a node that has lost its master (an election after the
 * master died) it is red for the cluster-wide write block alone, while every shard still answers.
 * No index matching yet (before the first start creates them) is serving: there is nothing to lose.
 */
export function indicesServing(health: Pick<estypes.ClusterHealthResponse, 'indices'>): boolean {
  return Object.values(health.indices ?? {}).every((index) => index.status !== 'red');
}

/** The indices of `health` that are red, for the log. */
export function redIndices(health: Pick<estypes.ClusterHealthResponse, 'indices'>): string[] {
  return Object.entries(health.indices ?? {})
    .filter(([, index]) => index.status === 'red')
    .map(([name]) => name)
    .sort();
}

/**
 * True when the node the client reaches answers the health of the indices of `patterns` within
 * `timeoutMs` and none is red; a red one is an error naming it (the watch logs why).
 * Read from that node's own cluster state (`local`): searches and writes need the shard copies,
 * not an elected master, so a master election is not an outage.
 * Tried on the next node when one does not answer (a dead node among several: the client marks
 * it dead and the next request goes elsewhere).
 */
export async function ownIndicesServing(client: Client, patterns: string[], timeoutMs = 3000): Promise<boolean> {
  const health = await client.cluster.health(
    { index: patterns, level: 'indices', local: true, expand_wildcards: 'open' },
    { requestTimeout: timeoutMs, maxRetries: 2 },
  );
  if (!indicesServing(health)) throw new Error(`red: ${redIndices(health).join(', ')}`);
  return true;
}
