/**
 * The previous whole-entry search, straight against Elasticsearch with the similarity service's
 * own code: hybridMatches (BM25 over title, summary, content, similarity_text and search_keywords,
 * kNN on the entry-level vector, one msearch), rankHybrid, the filter of entryFilter. The query
 * vector comes from the service's embedder module on the same model files. Only the msearch is
 * timed ("raw ES").
 */
import type { Client } from '@elastic/elasticsearch';
import {
  entryFilter,
  hybridMatches,
  type SearchFields,
  rankHybrid,
  entryMatches,
  fusionCandidates,
  entrySearchBodies,
  readQuestion,
  type EntryMatches,
  type PassageReading,
  unknownTermShare,
} from '@kb/search';
import { modelFilesIn, OnnxEmbedder } from '@kb/similarity';
import { SEARCH_LIMIT } from './search';

/**
 * The whole-entry fields as the search before passages read them (on the entry-level fields and
 * vector the index still keeps): the baseline the passage search is measured against.
 */
export const WHOLE_ENTRY: SearchFields = {
  textFields: ['title^2', 'summary^1.5', 'content', 'similarity_text'],
  keywordField: 'search_keywords',
  vectorField: 'vector',
};

/** What the Admin token may see (the visibility filter the gateway builds for it). */
const VISIBLE = ['public', 'community', 'internal', 'restricted', 'workspace'];

export interface BaselineHit {
  id: string;
  score: number;
  score_sources: Record<string, number>;
}

export class WholeEntryBaseline {
  private readonly fields = WHOLE_ENTRY;

  constructor(
    private readonly es: Client,
    private readonly index: string,
    private readonly tenantId: string,
  ) {}

  async search(query: string, language: string, vector: Float32Array): Promise<{ hits: BaselineHit[]; rawMs: number }> {
    const filter = entryFilter(this.tenantId, {
      visibility: { visibilities: VISIBLE, workspace_scoped: false, workspace_ids: [] },
      types: [],
      language,
    });
    const t0 = performance.now();
    const matches = await hybridMatches(this.es, {
      index: this.index,
      query: query.trim(),
      size: fusionCandidates(SEARCH_LIMIT),
      limit: SEARCH_LIMIT,
      filter,
      fields: this.fields,
      queryVector: vector,
    });
    const rawMs = performance.now() - t0;
    const hits = rankHybrid(matches, SEARCH_LIMIT).map((h) => ({
      id: h.id,
      score: h.score,
      score_sources: h.score_sources,
    }));
    return { hits, rawMs };
  }

  /**
   * The milliseconds of the service's own passage msearch for this question, straight against
   * Elasticsearch, and the share of its terms no entry contains (EntryMatches.unknownTerms).
   */
  async passageQuery(
    query: string,
    language: string,
    vector: Float32Array,
  ): Promise<{ ms: number; unknownTerms: number | null }> {
    const bodies = this.passageBodies(query, language, vector);
    const t0 = performance.now();
    const matches = await entryMatches(this.es, this.index, bodies);
    return { ms: performance.now() - t0, unknownTerms: matches.unknownTerms ?? null };
  }

  /** The share of the question's terms no entry contains, from the keyword search's term counts alone. */
  async unknownTerms(query: string, language: string | undefined): Promise<number | null> {
    const [keyword] = this.passageBodies(query, language, new Float32Array([1]));
    const res = await this.es.search({ index: this.index, ...keyword!, size: 0 });
    return unknownTermShare(res.aggregations) ?? null;
  }

  /**
   * What the service's searches find for this question, reading `reading` of each entry and
   * `passagesPerHit` passages per side (replay.ts records them with more than any profile reads).
   */
  async matches(
    query: string,
    language: string,
    vector: Float32Array,
    reading: PassageReading,
    passagesPerHit: number,
  ): Promise<EntryMatches> {
    return entryMatches(this.es, this.index, this.passageBodies(query, language, vector, { reading, passagesPerHit }));
  }

  /**
   * The service's passage msearch for this question (entrySearchBodies, as the similarity service
   * builds it; `read` overrides how much of each entry it reads).
   */
  private passageBodies(
    query: string,
    language: string | undefined,
    vector: Float32Array,
    read?: { reading: PassageReading; passagesPerHit: number },
  ) {
    const filter = entryFilter(this.tenantId, {
      visibility: { visibilities: VISIBLE, workspace_scoped: false, workspace_ids: [] },
      types: [],
      language,
    });
    const { profile, terms } = readQuestion(query.trim(), language, LOCAL_MODEL_LANGUAGES);
    return entrySearchBodies({
      query: query.trim(),
      ...terms,
      size: fusionCandidates(SEARCH_LIMIT),
      passagesPerHit: read?.passagesPerHit ?? PASSAGES_ASKED + 2,
      reading: read?.reading ?? profile.passageChoice,
      filter,
      queryVector: vector,
    });
  }
}

/** The languages of the model the stack runs (the similarity service's EMBEDDING_LANGUAGES default). */
export const LOCAL_MODEL_LANGUAGES = ['en'];

/** Passages per hit the eval asks for, and the extra inner hits the service reads per side. */
const PASSAGES_ASKED = 3;

/** Query vectors from the similarity service's own embedder class, on the model the stack runs. */
export async function embedQueries(
  model: { name: string; dims: number; dir: string },
  texts: string[],
): Promise<Float32Array[]> {
  const embedder = new OnnxEmbedder({ modelName: model.name, dims: model.dims, ...modelFilesIn(model.dir) });
  try {
    await embedder.ready();
    const out: Float32Array[] = [];
    // One text per call, as the service embeds a query.
    for (const t of texts) out.push((await embedder.embed([t.trim()]))[0]!);
    return out;
  } finally {
    await embedder.close();
  }
}
