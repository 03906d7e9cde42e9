import type { estypes } from '@elastic/elasticsearch';
import type { ProductVectorField } from './search-defaults';
export const productVectorPath = (field: ProductVectorField) => `vector_${field}` as const;
export const ENTRY_VECTOR_PATH = 'vector';
/** An entry's topic: its title, summary and similarity_text embedded together (see entryMappings). */
export const TOPIC_VECTOR_PATH = 'topic_vector';
/** Whether an entry's document has a topic vector (read back through doc values; see entryMappings). */
export const HAS_TOPIC_PATH = 'has_topic';
/** The nested passages of an entry and their fields (see entryMappings). */
export const PASSAGES_PATH = 'passages';
export const PASSAGE_VECTOR_PATH = 'passages.vector';
export const PASSAGE_STEMS_PATH = 'passages.stems';
/** The kinds of answer a passage states (statedAnswerTypes of @kb/text; see entryMappings). */
export const PASSAGE_ANSWERS_PATH = 'passages.answers';
/** The nested sentence vectors of an entry's passages (see entryMappings). */
export const SENTENCES_PATH = 'sentences';
export const SENTENCE_VECTOR_PATH = 'sentences.vector';
export const SENTENCE_CONTEXT_VECTOR_PATH = 'sentences.context_vector';
export const SENTENCE_CENTRALITY_PATH = 'sentences.centrality';

/**
 * Vectors stay out of `_source` (Elasticsearch 9.1+'s default, index.mapping.exclude_source_vectors):
 * a document's source is small, and a read that needs vectors asks for them (`exclude_vectors: false`).
 * Shards, replicas and the other index settings: index-settings.ts.
 *
 * Refreshed every SEARCH_REFRESH_INTERVAL rather than every second: each refresh of a busy index
 * writes a segment with HNSW graphs of its own, which merges build again. Nothing that waits for
 * searchability relies on the interval: a write's own indexing, deletes, reindex pages and the
 * background indexer's call that empties its queue all refresh before they answer
 * (docs/performance.md, "Why ingest sits around 0.8× the bare session").
 */
export const SEARCH_REFRESH_INTERVAL = '5s';
/**
 * The embedding cache is only ever read by id with realtime `mget`, which sees a write without a
 * refresh: refreshing it rarely only saves segments and merges.
 */
export const CACHE_REFRESH_INTERVAL = '30s';

/**
 * How the vectors are indexed (ELASTICSEARCH_VECTOR_INDEX). `hnsw`, the default: plain float
 * HNSW, scores are exact cosines of the stored vectors, which keeps kNN recall against brute
 * force high and score_sources exact. `int8_hnsw`: the graph searched with vectors quantized to
 * one byte per dimension (3.7× less memory for the kNN files), its candidates
 * (INT8_OVERSAMPLE × k) scored again with the float vectors, for tenants whose vectors outgrow
 * the nodes' memory (docs/operations.md, "Vector budget"). `bbq_hnsw` is not offered: entry
 * search's passages lost beyond the evaluation's spread with it.
 */
export const VECTOR_INDEX_TYPES = ['hnsw', 'int8_hnsw'] as const;
export type VectorIndexType = (typeof VECTOR_INDEX_TYPES)[number];
/** int8 candidates gathered per neighbour asked, then rescored with the float vectors (measured at 3). */
export const INT8_OVERSAMPLE = 3;

const vector = (dims: number, type: VectorIndexType): estypes.MappingProperty => ({
  type: 'dense_vector',
  dims,
  index: true,
  similarity: 'cosine',
  index_options:
    type === 'int8_hnsw'
      ? ({
          type: 'int8_hnsw',
          m: 16,
          ef_construction: 100,
          rescore_vector: { oversample: INT8_OVERSAMPLE },
        } as estypes.MappingDenseVectorIndexOptions)
      : { type: 'hnsw', m: 16, ef_construction: 100 },
});
/**
 * Lucene refuses a term longer than 32,766 UTF-8 bytes, and with it the whole document
 * ("immense term"), so a 40 KB category or tag would never be indexed. Keyword fields skip
 * (ignore_above) values longer than this many characters: 8,191 always fits, whatever the
 * characters (at most 3 UTF-8 bytes per UTF-16 unit, 4 per surrogate pair). A skipped value is
 * still in _source and in the `.text` sub-field where there is one (multi-fields are indexed
 * regardless), so such a brand or category is found by full text but not by an exact filter.
 */
export const KEYWORD_IGNORE_ABOVE = 8191;
const keyword: estypes.MappingProperty = { type: 'keyword', ignore_above: KEYWORD_IGNORE_ABOVE };
const text: estypes.MappingProperty = { type: 'text' };
/**
 * Text analysed in code (`analyzeText` of @kb/text: lower case, stop words out, Snowball stems,
 * German compounds split), so only split at spaces here: the same in every cluster, with or
 * without the analysis-common module.
 */
const stems: estypes.MappingProperty = { type: 'text', analyzer: 'whitespace' };
const keywordWithText: estypes.MappingProperty = {
  type: 'keyword',
  ignore_above: KEYWORD_IGNORE_ABOVE,
  fields: { text: { type: 'text' } },
};

export function productMappings(dims: number, vectors: VectorIndexType = 'hnsw'): estypes.MappingTypeMapping {
  return {
    dynamic: 'strict',
    properties: {
      tenant_id: keyword,
      site_id: keyword,
      language: keyword,
      availability: keyword,
      parent_product_id: keyword,
      external_id: keyword,
      sku: keyword,
      gtin: keyword,
      brand: keywordWithText,
      category: keywordWithText,
      title: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 512 } } },
      search_keywords: text,
      description: text,
      short_description: text,
      price_current: { type: 'double' },
      is_parent: { type: 'boolean' },
      is_variant: { type: 'boolean' },
      version: { type: 'long' },
      /** The product as a search hit shows it (ProductDocument.hit_json): answers need no MongoDB read. */
      hit: { type: 'object', enabled: false },
      vector_description: vector(dims, vectors),
      vector_properties: vector(dims, vectors),
      vector_attributes: vector(dims, vectors),
    },
  };
}

export function entryMappings(dims: number, vectors: VectorIndexType = 'hnsw'): estypes.MappingTypeMapping {
  return {
    dynamic: 'strict',
    properties: {
      tenant_id: keyword,
      visibility: keyword,
      owner_user_id: keyword,
      workspace_id: keyword,
      type: keyword,
      category_id: keyword,
      language: keyword,
      layer: keyword,
      tags: keyword,
      title: text,
      summary: text,
      content: text,
      similarity_text: text,
      search_keywords: text,
      updated_at: { type: 'date' },
      version: { type: 'long' },
      vector: vector(dims, vectors),
      /**
       * What the entry is about, as its editor says it (title, summary, similarity_text), without
       * the content: with the sentences it ranks the entry (a question asks about a topic first).
       * (Added in place to older indices; their entries have it once reindexed.)
       */
      topic_vector: vector(dims, vectors),
      /**
       * True where `topic_vector` is there: an entry indexed by an earlier release has none until
       * it is written again or reindexed, and ranks without it rather than with a topic of 0.
       */
      has_topic: { type: 'boolean' },
      site_ids: keyword,
      /**
       * The entry as a search hit shows it, content left out (EntryDocument.hit_json), and its
       * expiry: the gateway's read path answers from the index without a MongoDB read.
       */
      hit: { type: 'object', enabled: false },
      /** Title, summary, similarity_text and search_keywords as analyzeText gives them. */
      stems,
      /**
       * The content split along its Markdown structure (splitPassages of @kb/text), one nested
       * document per passage: where it sits in the content (UTF-16 offsets, read back through doc
       * values), its stems (with its headings), its own vector (title and headings as context) and
       * the kinds of answer it states (`answers`: money, duration, clock; added in place to older
       * indices, whose entries have them once reindexed).
       */
      passages: {
        type: 'nested',
        properties: {
          start: { type: 'integer', index: false },
          end: { type: 'integer', index: false },
          stems,
          vector: vector(dims, vectors),
          answers: keyword,
        },
      },
      /**
       * Every sentence of every passage (sentencesOf of @kb/text), the offsets its passage's:
       * `vector` embeds it alone and chooses an entry's passages (a fact is one sentence among
       * same-topic ones, which the passage's own vector blurs); `context_vector` embeds it after
       * the entry's title and the passage's headings and, with the passages and `vector`, ranks
       * the entry; `centrality` (how much it restates what the entry as a whole says) counts
       * against it in choosing passages. (Added in place to older indices; their entries have them
       * once reindexed.)
       */
      sentences: {
        type: 'nested',
        properties: {
          start: { type: 'integer', index: false },
          end: { type: 'integer', index: false },
          vector: vector(dims, vectors),
          context_vector: vector(dims, vectors),
          /** The sentence's cosine to the centroid of its entry's sentences (read back through doc values). */
          centrality: { type: 'float', index: false },
        },
      },
    },
  };
}

/** The embedding cache: the vector is kept in a non-indexed object, so _source always returns it. */
export function embeddingCacheMappings(): estypes.MappingTypeMapping {
  return {
    dynamic: 'strict',
    properties: {
      model: keyword,
      dims: { type: 'integer' },
      embedding: { type: 'object', enabled: false },
    },
  };
}
