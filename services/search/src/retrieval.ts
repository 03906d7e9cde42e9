import type { Attributes } from '@opentelemetry/api';
import { questionLanguage } from '@kb/text';

/** Provenance attributes: at most this many hits and passages are named on the span. */
const TRACED_HITS = 20;
const TRACED_PASSAGES = 60;

/** The name of the span every entry search is answered in, wherever it is answered. */
export const RETRIEVAL_SPAN = 'retrieval knowledge-entries';

/** What an entry search hit says about where it came from (the knowledge service's and the read path's hits alike). */
export interface RetrievedHit {
  entry: { id: string; version: number } | null | undefined;
  relevance?: number | null;
  passages?: { start: number; end: number; score?: number | null }[] | null;
}

/**
 * The attributes an entry search span starts with (OpenTelemetry GenAI retrieval conventions where
 * they fit), and the language the question was read in: the caller's (`request`), the one it is
 * written in (`detected`), or `any` when neither (read in English and German; source `none`).
 */
export function retrievalRequestAttributes(
  limit: number,
  minRelevance: number,
  question: { query: string; language?: string | null },
): Attributes {
  const read = questionLanguage(question.query, question.language);
  return {
    'gen_ai.operation.name': 'retrieval',
    'gen_ai.data_source.id': 'knowledge-entries',
    'gen_ai.request.top_k': limit,
    'kb.retrieval.min_relevance': minRelevance,
    'kb.retrieval.query_language': read ?? 'any',
    'kb.retrieval.query_language_source': question.language ? 'request' : read ? 'detected' : 'none',
  };
}

/** What an operator needs to see exactly which version of which passage a caller was given (bounded). */
export function retrievalProvenance(hits: RetrievedHit[]): Attributes {
  const shown = hits.slice(0, TRACED_HITS);
  return {
    'kb.retrieval.hits': hits.length,
    'kb.retrieval.entry_ids': shown.map((h) => h.entry?.id ?? ''),
    'kb.retrieval.entry_versions': shown.map((h) => h.entry?.version ?? 0),
    'kb.retrieval.relevance': shown.map((h) => Number((h.relevance ?? 0).toFixed(4))),
    'kb.retrieval.passages': shown
      .flatMap((h) =>
        (h.passages ?? []).map(
          (p) => `${h.entry?.id ?? ''}@${h.entry?.version ?? 0}:${p.start}-${p.end}:${(p.score ?? 0).toFixed(4)}`,
        ),
      )
      .slice(0, TRACED_PASSAGES),
  };
}
