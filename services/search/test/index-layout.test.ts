/**
 * The shards and replicas of the service's indices (index-settings.ts) and the health decision
 * of its watches (index-health.ts): which indices count, and which states serve.
 */
import { cacheIndexSettings, replicaSettings, replicasProblem, searchIndexSettings } from '../src/index-settings';
import { indicesServing, ownIndexPatterns, redIndices } from '../src/index-health';
import { elasticsearchNodes } from '../src/elasticsearch';
import { entryMappings, INT8_OVERSAMPLE, productMappings } from '../src/mappings';
import type { estypes } from '@elastic/elasticsearch';

/** Every dense_vector field of a mapping (nested ones too), by path. */
function vectorFields(mapping: estypes.MappingTypeMapping): Record<string, estypes.MappingDenseVectorProperty> {
  const out: Record<string, estypes.MappingDenseVectorProperty> = {};
  const visit = (props: Record<string, estypes.MappingProperty>, prefix: string) => {
    for (const [name, p] of Object.entries(props)) {
      if (p.type === 'dense_vector') out[prefix + name] = p as estypes.MappingDenseVectorProperty;
      if (p.type === 'nested') visit((p as estypes.MappingNestedProperty).properties ?? {}, `${prefix}${name}.`);
    }
  };
  visit(mapping.properties ?? {}, '');
  return out;
}

describe('index layout', () => {
  test('when nothing is set, then each index has one shard and auto-expands from no replica to one', () => {
    expect(searchIndexSettings()).toMatchObject({
      'index.number_of_shards': 1,
      'index.auto_expand_replicas': '0-1',
      'index.refresh_interval': '5s',
      'index.gc_deletes': '1h',
    });
    expect(searchIndexSettings()).not.toHaveProperty('index.number_of_replicas');
    expect(cacheIndexSettings()).toMatchObject({
      'index.auto_expand_replicas': '0-1',
      'index.refresh_interval': '30s',
    });
  });

  test('when shards and a replica count are given, then the count replaces auto-expansion', () => {
    expect(searchIndexSettings({ shards: 3, replicas: '2' })).toMatchObject({
      'index.number_of_shards': 3,
      'index.number_of_replicas': 2,
      'index.auto_expand_replicas': 'false',
    });
    expect(replicaSettings('0-all')).toEqual({ 'index.auto_expand_replicas': '0-all' });
  });

  test.each([
    ['0', undefined],
    ['1', undefined],
    ['0-1', undefined],
    ['1-2', undefined],
    ['0-all', undefined],
    ['2-1', 'must be a range whose lower bound is not above its upper bound (e.g. 0-1)'],
    ['-1', 'must be a replica count (e.g. 1) or an auto-expand range (e.g. 0-1, 0-all)'],
    ['one', 'must be a replica count (e.g. 1) or an auto-expand range (e.g. 0-1, 0-all)'],
    ['all-0', 'must be a replica count (e.g. 1) or an auto-expand range (e.g. 0-1, 0-all)'],
    ['01', 'must be a replica count (e.g. 1) or an auto-expand range (e.g. 0-1, 0-all)'],
    ['0-1-2', 'must be a replica count (e.g. 1) or an auto-expand range (e.g. 0-1, 0-all)'],
  ])('when the replicas setting is %s, then its problem is %s', (value, problem) => {
    expect(replicasProblem(value)).toBe(problem);
  });
});

describe('vector index type', () => {
  test('when nothing is set, then every vector of products and entries is float HNSW without rescoring', () => {
    for (const mapping of [productMappings(384), entryMappings(384)])
      for (const field of Object.values(vectorFields(mapping)))
        expect(field.index_options).toEqual({ type: 'hnsw', m: 16, ef_construction: 100 });
  });

  test('when int8_hnsw is asked, then every vector (nested passages and sentences too) is int8 with float rescoring', () => {
    const products = vectorFields(productMappings(384, 'int8_hnsw'));
    const entries = vectorFields(entryMappings(384, 'int8_hnsw'));
    expect(Object.keys(products).sort()).toEqual(['vector_attributes', 'vector_description', 'vector_properties']);
    expect(Object.keys(entries)).toEqual(
      expect.arrayContaining([
        'vector',
        'topic_vector',
        'passages.vector',
        'sentences.vector',
        'sentences.context_vector',
      ]),
    );
    for (const field of [...Object.values(products), ...Object.values(entries)])
      expect(field.index_options).toMatchObject({ type: 'int8_hnsw', rescore_vector: { oversample: INT8_OVERSAMPLE } });
  });
});

describe('index health', () => {
  const health = (statuses: Record<string, 'green' | 'yellow' | 'red'>) => ({
    indices: Object.fromEntries(Object.entries(statuses).map(([name, status]) => [name, { status } as never])),
  });

  test('when every own index is green or yellow, then the indices serve', () => {
    expect(indicesServing(health({ 'kb-products-m-384-1': 'green', 'kb-entries-m-384-1': 'yellow' }))).toBe(true);
  });

  test('when one own index is red, then they do not serve, and the red one is named', () => {
    const answer = health({ 'kb-products-m-384-1': 'green', 'kb-entries-m-384-1': 'red' });
    expect(indicesServing(answer)).toBe(false);
    expect(redIndices(answer)).toEqual(['kb-entries-m-384-1']);
  });

  test('when no own index exists yet, then they serve (there is nothing to lose; the service creates them)', () => {
    expect(indicesServing({ indices: {} })).toBe(true);
    expect(indicesServing({})).toBe(true);
  });

  test('when the overall status is red (a node without a master) but every own index is yellow, then they serve', () => {
    expect(indicesServing({ ...health({ 'kb-products-m-384-1': 'yellow' }), status: 'red' } as never)).toBe(true);
  });

  test('when the prefix is kb, then the patterns are its products, entries and cache indices, not another prefix', () => {
    const patterns = ownIndexPatterns('kb');
    expect(patterns).toEqual(['kb-products-*', 'kb-entries-*', 'kb-embeddings-*']);
    const matches = (index: string) =>
      patterns.some((p) => new RegExp(`^${p.replace(/[-]/g, '\\-').replace('*', '.*')}$`).test(index));
    expect(matches('kb-products-all-minilm-l6-v2-q-384-20261129061200000-a1b2c3')).toBe(true);
    expect(matches('kb-other-products-all-minilm-l6-v2-q-384-20261129061200000-a1b2c3')).toBe(false);
    expect(ownIndexPatterns('acme', ['products', 'entries'])).toEqual(['acme-products-*', 'acme-entries-*']);
  });
});

describe('Elasticsearch URL', () => {
  test('when the URL lists several nodes, then each is one node of the client, trailing slashes and spaces gone', () => {
    expect(elasticsearchNodes('http://127.0.0.1:9200')).toEqual(['http://127.0.0.1:9200']);
    expect(elasticsearchNodes('http://a:9200/, http://b:9200,http://c:9200')).toEqual([
      'http://a:9200',
      'http://b:9200',
      'http://c:9200',
    ]);
  });
});
