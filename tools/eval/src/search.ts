/**
 * Entry search as the evaluation drives it, through the benchmark's gateway client (a 60 s bound
 * per call): it falls back to the older request when the gateway does not know the passage
 * fields yet.
 */
import { Api, HttpError } from '@kb/bench';

export { Api, HttpError };

/** The evaluation's bound on one call. */
export const CALL_TIMEOUT_MS = 60_000;

export interface Passage {
  text: string;
  start: number;
  end: number;
  score?: number;
  highlights?: { start: number; end: number }[];
}

/** A hit as the runner keeps it: what the gateway sent, with passages [] and relevance undefined when absent. */
export interface Hit {
  entry: { id: string; version?: number; title?: string; content?: string };
  score: number;
  relevance: number | undefined;
  score_sources: Record<string, number>;
  passages: Passage[];
}

/** passages: the API with passages and relevance; fallback: `{query, limit, language}` only. */
export type SearchMode = 'passages' | 'fallback';

export const SEARCH_LIMIT = 10;
export const PASSAGES = 3;

/** A 422 that names a field the gateway does not know (TypeBox's additionalProperties: false). */
const unknownField = (err: unknown) =>
  err instanceof HttpError && err.status === 422 && /Extra inputs|passages|include_content/i.test(err.body);

export class EntrySearch {
  mode: SearchMode | undefined;

  constructor(
    private readonly api: Api,
    private readonly options: { withLanguage?: boolean } = {},
  ) {}

  /** One search; `ms` is the round trip of the request whose answer is returned. */
  async search(
    query: string,
    language: string,
    options: { includeContent?: boolean } = {},
  ): Promise<{ hits: Hit[]; ms: number }> {
    const lang = this.options.withLanguage === false ? {} : { language };
    const full = {
      query,
      limit: SEARCH_LIMIT,
      passages: PASSAGES,
      ...lang,
      include_content: options.includeContent ?? false,
    };
    const older = { query, limit: SEARCH_LIMIT, ...lang };
    if (this.mode !== 'fallback') {
      try {
        const answer = await this.timed(full);
        this.mode ??= 'passages';
        return answer;
      } catch (err) {
        if (this.mode === 'passages' || !unknownField(err)) throw err;
        this.mode = 'fallback';
      }
    }
    return this.timed(older);
  }

  private async timed(body: unknown): Promise<{ hits: Hit[]; ms: number }> {
    const t0 = performance.now();
    const raw = await this.api.post<unknown[]>('/search/entries', body);
    const ms = performance.now() - t0;
    return { hits: raw.map(toHit), ms };
  }
}

function toHit(value: unknown): Hit {
  const h = value as Partial<Hit> & { entry: Hit['entry'] };
  return {
    entry: h.entry,
    score: Number(h.score ?? 0),
    relevance: typeof h.relevance === 'number' ? h.relevance : undefined,
    score_sources: h.score_sources ?? {},
    passages: Array.isArray(h.passages) ? h.passages : [],
  };
}
