/**
 * A sentence-embedding provider. Every vector it returns has `dims` components and unit L2 norm,
 * so cosine similarity is a plain dot product and centroids can be averaged and renormalised.
 */
export interface Embedder {
  /** Model identifier; index names carry it so a model change is a reindex, never a mixed index. */
  readonly model: string;
  readonly dims: number;
  /**
   * One vector per text, in input order. Rejects with EmbedderInputError for a text that is empty
   * or only whitespace, with EmbedderUnavailableError when the provider cannot answer right now.
   */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Resolves once the provider has answered once (model loaded / endpoint reachable); cached. */
  ready(): Promise<void>;
  /** Waits for work in flight, frees resources; later calls reject with EmbedderUnavailableError. */
  close(): Promise<void>;
}

/** The provider cannot answer now (network down, 5xx, 429, timeout, model missing, closed). Map to gRPC UNAVAILABLE. */
export class EmbedderUnavailableError extends Error {
  override readonly name = 'EmbedderUnavailableError';
  /** Seconds the server asked us to wait (HTTP Retry-After), when it said so. */
  readonly retryAfterSeconds: number | undefined;

  constructor(message: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

/** The caller sent something no provider can embed. Map to gRPC INVALID_ARGUMENT. */
export class EmbedderInputError extends Error {
  override readonly name = 'EmbedderInputError';

  constructor(
    message: string,
    /** Position of the offending text in the `texts` argument. */
    readonly index: number,
  ) {
    super(message);
  }
}

/**
 * Empty or whitespace-only text is rejected rather than embedded: a model still returns a vector
 * for it (from the special tokens alone), and that vector would match arbitrary products. Callers
 * should skip fields with no text instead. Both providers apply the same rule.
 */
export function assertEmbeddable(texts: readonly unknown[]): asserts texts is string[] {
  texts.forEach((text, index) => {
    if (typeof text !== 'string') throw new EmbedderInputError(`text ${index} is not a string`, index);
    if (text.trim() === '')
      throw new EmbedderInputError(`text ${index} is empty or whitespace only; nothing to embed`, index);
  });
}

/** Scales `v` in place to unit length; throws on a zero or non-finite vector, which has no direction. */
export function l2Normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum);
  if (!Number.isFinite(norm) || norm === 0)
    throw new Error('embedding has zero or non-finite length; cannot normalise it');
  for (let i = 0; i < v.length; i++) v[i] = v[i]! / norm;
  return v;
}

/** Fails fast on a bad option instead of at the first embed call. */
export function requirePositiveInt(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/** `embedder` with its embed calls going through `embed`; model, dims, ready and close pass through. */
export function wrapEmbed(embedder: Embedder, embed: Embedder['embed']): Embedder {
  return {
    get model() {
      return embedder.model;
    },
    get dims() {
      return embedder.dims;
    },
    embed,
    ready: () => embedder.ready(),
    close: () => embedder.close(),
  };
}
