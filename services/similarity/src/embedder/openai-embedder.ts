import { insecureUrlProblem } from '@kb/platform';
import {
  assertEmbeddable,
  type Embedder,
  EmbedderInputError,
  EmbedderUnavailableError,
  l2Normalize,
  requirePositiveInt,
} from './embedder';

export interface OpenAiEmbedderOptions {
  /** Server root, e.g. `http://127.0.0.1:8000` or `https://api.openai.com`; a trailing `/v1` is tolerated. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  apiKey?: string;
  model: string;
  dims: number;
  /** Per request. Default 30 000. */
  timeoutMs?: number;
  /** Inputs per request. Default 32, which every compatible server we know accepts. */
  batchSize?: number;
}

interface EmbeddingItem {
  index: number;
  embedding: number[];
}

/**
 * Embeddings from an OpenAI-compatible `POST /v1/embeddings` endpoint (OpenAI, vLLM, Ollama,
 * LocalAI, text-embeddings-inference...). Requests go one at a time, to stay under rate limits.
 */
export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  readonly dims: number;
  private readonly url: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly batchSize: number;
  /** Aborts requests in flight on close(). */
  private readonly closing = new AbortController();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readied: Promise<void> | undefined;

  constructor(options: OpenAiEmbedderOptions) {
    this.url = `${options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1/embeddings`;
    this.apiKey = options.apiKey || undefined;
    this.model = options.model;
    this.dims = requirePositiveInt('dims', options.dims);
    this.timeoutMs = requirePositiveInt('timeoutMs', options.timeoutMs ?? 30_000);
    this.batchSize = requirePositiveInt('batchSize', options.batchSize ?? 32);
  }

  /** One probe request, cached once it succeeds: proves the endpoint, key, model and width. A start-up check, not a liveness probe. */
  ready(): Promise<void> {
    this.readied ??= this.embed(['ready']).then(
      () => undefined,
      (err: unknown) => {
        this.readied = undefined;
        throw err;
      },
    );
    return this.readied;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    assertEmbeddable(texts);
    const vectors: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      const request = this.request(texts.slice(i, i + this.batchSize));
      this.inFlight.add(request);
      try {
        vectors.push(...(await request));
      } finally {
        this.inFlight.delete(request);
      }
    }
    return vectors;
  }

  async close(): Promise<void> {
    this.closing.abort();
    await Promise.allSettled([...this.inFlight]);
  }

  private async request(input: string[]): Promise<Float32Array[]> {
    // Checked here too, not only in the service's configuration: the class may be built directly.
    const refused = embeddingUrlProblem(this.url);
    if (refused) throw new Error(refused);
    if (this.closing.signal.aborted) throw new EmbedderUnavailableError(`embedder ${this.model} is closed`);
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.apiKey !== undefined) headers['authorization'] = `Bearer ${this.apiKey}`;

    let response: Response;
    let body: string;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.model, input }),
        signal: AbortSignal.any([AbortSignal.timeout(this.timeoutMs), this.closing.signal]),
      });
      body = await boundedText(response, MAX_RESPONSE_BYTES);
    } catch (err) {
      if (err instanceof ResponseTooLarge) throw new Error(`embedding endpoint ${this.url} ${err.message}`);
      throw new EmbedderUnavailableError(`embedding endpoint ${this.url} did not answer: ${this.describe(err)}`, {
        cause: err,
      });
    }

    if (response.status === 429 || response.status >= 500) {
      const retryAfter = Number(response.headers.get('retry-after') ?? NaN);
      throw new EmbedderUnavailableError(
        `embedding endpoint ${this.url} answered ${response.status}: ${errorMessage(body)}`,
        {
          ...(Number.isFinite(retryAfter) && retryAfter >= 0 ? { retryAfterSeconds: retryAfter } : {}),
        },
      );
    }
    if (response.status === 400 || response.status === 413 || response.status === 422) {
      // The endpoint refused these texts as they are (too long, bad characters): not the model's
      // fault nor ours to retry. Which text is not said; callers that embed many texts for many
      // documents find it by embedding each document's texts alone (index-entries.ts).
      throw new EmbedderInputError(
        `embedding endpoint ${this.url} refused the texts (${response.status}): ${errorMessage(body)}`,
        -1,
      );
    }
    if (!response.ok) {
      // Our configuration is wrong (bad key, unknown model); retrying will not help.
      throw new Error(
        `embedding endpoint ${this.url} rejected the request for model ${this.model} with ${response.status}: ${errorMessage(body)}`,
      );
    }
    return this.parse(body, input.length);
  }

  private parse(body: string, expected: number): Float32Array[] {
    let data: unknown;
    try {
      data = (JSON.parse(body) as { data?: unknown }).data;
    } catch {
      // reported below
    }
    if (!Array.isArray(data))
      throw new Error(
        `embedding endpoint ${this.url} sent a malformed response (no "data" array): ${body.slice(0, 300)}`,
      );
    if (data.length !== expected)
      throw new Error(`embedding endpoint ${this.url} sent ${data.length} vectors for ${expected} inputs`);
    // Servers may answer out of order; `index` says which input each vector belongs to.
    const vectors = new Array<Float32Array>(expected);
    for (const item of data as Array<Partial<EmbeddingItem> | null>) {
      const index = item?.index;
      const embedding = item?.embedding;
      if (
        index === undefined ||
        !Number.isInteger(index) ||
        index < 0 ||
        index >= expected ||
        vectors[index] !== undefined ||
        !Array.isArray(embedding)
      ) {
        throw new Error(
          `embedding endpoint ${this.url} sent a malformed response: bad or repeated item index ${String(index)}`,
        );
      }
      if (embedding.length !== this.dims) {
        throw new Error(
          `embedding endpoint ${this.url} returned ${embedding.length}-dimensional ` +
            `vectors for model ${this.model}; configured dims ${this.dims}`,
        );
      }
      vectors[index] = l2Normalize(Float32Array.from(embedding));
    }
    return vectors;
  }

  private describe(err: unknown): string {
    if (this.closing.signal.aborted) return 'embedder closed';
    // Duck-typed, not instanceof: fetch's errors may come from another realm (e.g. under Jest).
    const { name, message, cause } = (err ?? {}) as {
      name?: string;
      message?: string;
      cause?: { code?: string; message?: string };
    };
    if (name === 'TimeoutError') return `no answer within ${this.timeoutMs} ms`;
    // undici says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND, ...) is in the cause.
    return [message ?? String(err), cause?.code ?? cause?.message].filter(Boolean).join(': ');
  }
}

/** The server's own words: OpenAI-style `{"error": {"message": ...}}`, else the start of the body. */
function errorMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; detail?: unknown };
    const message = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.detail);
    if (message !== undefined) return typeof message === 'string' ? message : JSON.stringify(message);
  } catch {
    // not JSON
  }
  return body.slice(0, 300) || '(empty body)';
}

/**
 * The most an answer may hold: 256 texts of 4,096 dimensions as JSON numbers (~20 bytes each)
 * with room to spare. A larger one is not an embedding answer; it is not read to the end.
 */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

class ResponseTooLarge extends Error {}

/** The body as text, refused past `limit` bytes (the endpoint is trusted for its vectors, not its size). */
async function boundedText(response: Response, limit: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel();
    throw new ResponseTooLarge(`sent a response of ${declared} bytes (at most ${limit})`);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new ResponseTooLarge(`sent a response of over ${limit} bytes`);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/** Why an embedding endpoint URL may not be used: texts and the API key travel in it. */
export const embeddingUrlProblem = (url: string) => insecureUrlProblem('EMBEDDING_API_URL', url);
