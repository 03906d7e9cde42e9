/** ELASTICSEARCH_SHARDS, _REPLICAS and _VECTOR_INDEX, ELASTICSEARCH_URL as a node list: read and checked at start. */
import { indexLayoutOf, loadSimilarityConfig } from '../src/config';

const env = (extra: Record<string, string>) => ({
  EMBEDDING_MODEL_DIR: '/tmp',
  ELASTICSEARCH_URL: 'http://127.0.0.1:9200',
  SERVICE_AUTH_SECRET: 'a'.repeat(40),
  SERVICE_SYSTEM_SECRET: 'b'.repeat(40),
  ...extra,
});

describe('the index layout settings', () => {
  test('when neither is set, then one shard and replicas auto-expanding 0-1', () => {
    expect(indexLayoutOf(loadSimilarityConfig(env({})))).toEqual({ shards: 1, replicas: '0-1', vectors: 'hnsw' });
  });

  test('when both are set, then they are taken', () => {
    const config = loadSimilarityConfig(env({ ELASTICSEARCH_SHARDS: '3', ELASTICSEARCH_REPLICAS: '0-all' }));
    expect(indexLayoutOf(config)).toEqual({ shards: 3, replicas: '0-all', vectors: 'hnsw' });
    const int8 = loadSimilarityConfig(env({ ELASTICSEARCH_VECTOR_INDEX: 'int8_hnsw' }));
    expect(indexLayoutOf(int8).vectors).toBe('int8_hnsw');
    expect(loadSimilarityConfig(env({ ELASTICSEARCH_REPLICAS: '2' })).ELASTICSEARCH_REPLICAS).toBe('2');
  });

  test.each([
    [{ ELASTICSEARCH_SHARDS: '0' }, /ELASTICSEARCH_SHARDS expected integer to be greater or equal to 1/],
    [{ ELASTICSEARCH_SHARDS: 'two' }, /ELASTICSEARCH_SHARDS expected integer/],
    // bbq_hnsw lost entry search's passages beyond the evaluation's spread: not offered.
    [{ ELASTICSEARCH_VECTOR_INDEX: 'bbq_hnsw' }, /ELASTICSEARCH_VECTOR_INDEX/],
    [
      { ELASTICSEARCH_REPLICAS: 'some' },
      /ELASTICSEARCH_REPLICAS must be a replica count \(e\.g\. 1\) or an auto-expand range/,
    ],
    [
      { ELASTICSEARCH_REPLICAS: '3-1' },
      /ELASTICSEARCH_REPLICAS must be a range whose lower bound is not above its upper bound/,
    ],
  ])('when the setting is %j, then the service refuses to start, naming it', (extra, message) => {
    expect(() => loadSimilarityConfig(env(extra))).toThrow(message);
  });

  test('when ELASTICSEARCH_URL lists several nodes, then it is accepted; a list with a non-URL is not', () => {
    const nodes = 'http://127.0.0.1:9200,http://127.0.0.1:9201, http://127.0.0.1:9202';
    expect(loadSimilarityConfig(env({ ELASTICSEARCH_URL: nodes })).ELASTICSEARCH_URL).toBe(nodes);
    expect(() => loadSimilarityConfig(env({ ELASTICSEARCH_URL: 'http://a:9200,b:9200' }))).toThrow(
      /ELASTICSEARCH_URL must be an http\(s\):\/\/ URL, or several separated by commas \(value not shown\)/,
    );
  });
});
