import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Tokenizer } from '@huggingface/tokenizers';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { assertEmbeddable, type Embedder, EmbedderUnavailableError, l2Normalize, requirePositiveInt } from './embedder';

export interface OnnxEmbedderOptions {
  /** Reported as `Embedder.model`, e.g. `all-minilm-l6-v2-q`. */
  modelName: string;
  dims: number;
  /** The ONNX file (a sentence-transformers BERT export with input_ids / attention_mask in, last_hidden_state out). */
  modelPath: string;
  /** The Hugging Face `tokenizer.json` that goes with the model. */
  tokenizerPath: string;
  /** Tokens per text, [CLS] and [SEP] included; longer texts are cut. Default 256, where sentence-transformers cuts for this model. */
  maxTokens?: number;
  /**
   * Texts per inference run. Default 1, and keep it there for quantized models: their activations
   * are quantized with one scale per tensor (DynamicQuantizeLinear), so padding and the other texts
   * of a batch change every text's vector (measured cosine ~0.99 against the same text run alone).
   * A vector must depend on its text only: vectors are cached by text hash and compared across
   * indexing runs. Measured on 2 cores, 32 is 1.2x (mixed lengths) to 2x (equal lengths) faster
   * and stalls the event loop ~60 ms per run; fine for float models, where batching is exact.
   */
  batchSize?: number;
  /** Intra-op threads; default min(2, cores). More threads than cores only adds contention. */
  threads?: number;
}

/** One embed() call waiting for its runs: its texts, the vectors so far, how to answer. */
interface Call {
  texts: string[];
  vectors: Float32Array[];
  resolve(vectors: Float32Array[]): void;
  reject(err: unknown): void;
}

interface Loaded {
  session: InferenceSession;
  tokenizer: Tokenizer;
  hasTokenTypeIds: boolean;
}

const OUTPUT = 'last_hidden_state';

/**
 * Local sentence embeddings: tokenizer + ONNX Runtime on the CPU, mean pooling over the attention
 * mask, L2 normalisation (what sentence-transformers does for all-MiniLM-L6-v2).
 *
 * onnxruntime-node runs inference synchronously on the main thread, so runs are kept short (one
 * text each by default) and serialised: concurrent runs on two cores only contend, and between
 * runs the event loop gets its turn for gRPC traffic and health checks.
 */
export class OnnxEmbedder implements Embedder {
  readonly model: string;
  readonly dims: number;
  private readonly options: OnnxEmbedderOptions;
  private readonly maxTokens: number;
  private readonly batchSize: number;
  private loading: Promise<Loaded> | undefined;
  /** Calls waiting for runs, oldest first; `running` while the loop in drain() works them off. */
  private readonly calls: Call[] = [];
  private running = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;

  constructor(options: OnnxEmbedderOptions) {
    this.options = options;
    this.model = options.modelName;
    this.dims = requirePositiveInt('dims', options.dims);
    this.maxTokens = requirePositiveInt('maxTokens', options.maxTokens ?? 256);
    if (this.maxTokens < 2) throw new RangeError('maxTokens must leave room for [CLS] and [SEP]');
    this.batchSize = requirePositiveInt('batchSize', options.batchSize ?? 1);
    requirePositiveInt('threads', options.threads ?? 1);
  }

  async ready(): Promise<void> {
    if (this.closed) throw this.closedError();
    await this.load();
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    assertEmbeddable(texts);
    if (this.closed) throw this.closedError();
    if (texts.length === 0) return [];
    const work = this.embedAll(texts);
    this.inFlight.add(work);
    try {
      return await work;
    } finally {
      this.inFlight.delete(work);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.inFlight]);
    const loaded = await this.loading?.catch(() => undefined);
    await loaded?.session.release();
  }

  private async embedAll(texts: string[]): Promise<Float32Array[]> {
    const loaded = await this.load();
    return new Promise<Float32Array[]>((resolve, reject) => {
      this.calls.push({ texts, vectors: [], resolve, reject });
      void this.drain(loaded);
    });
  }

  /**
   * Runs the waiting calls' texts one run at a time. The next run is always of the call with the
   * fewest texts left (the oldest of those): a search query waits for at most one run of a
   * bulk, an inline write's call goes before a reindex's larger one, and a call once started
   * keeps going, so of two indexing calls the first gets its vectors after its own runs, not
   * after both calls' (its Elasticsearch write then overlaps the second call's runs, and the
   * model is not left waiting for it).
   */
  private async drain(loaded: Loaded): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let call = this.nextCall(); call; call = this.nextCall()) {
        const batch = call.texts.slice(call.vectors.length, call.vectors.length + this.batchSize);
        try {
          call.vectors.push(...(await this.run(loaded, batch)));
        } catch (err) {
          this.calls.splice(this.calls.indexOf(call), 1);
          call.reject(err);
          continue;
        }
        if (call.vectors.length >= call.texts.length) {
          this.calls.splice(this.calls.indexOf(call), 1);
          call.resolve(call.vectors);
        }
      }
    } finally {
      this.running = false;
    }
  }

  private nextCall(): Call | undefined {
    let next: Call | undefined;
    for (const call of this.calls)
      if (!next || call.texts.length - call.vectors.length < next.texts.length - next.vectors.length) next = call;
    return next;
  }

  private closedError(): EmbedderUnavailableError {
    return new EmbedderUnavailableError(`embedder ${this.model} is closed`);
  }

  /** One load in flight at a time; a failed load is forgotten so the next call retries (the model file may appear later). */
  private load(): Promise<Loaded> {
    this.loading ??= this.loadOnce().catch((err: unknown) => {
      this.loading = undefined;
      throw err;
    });
    return this.loading;
  }

  private async loadOnce(): Promise<Loaded> {
    const { modelPath, tokenizerPath } = this.options;
    let tokenizer: Tokenizer;
    let session: InferenceSession;
    try {
      // The library ignores the file's own "truncation" block (LangChain4j's copy says 128); we cut at maxTokens ourselves.
      tokenizer = new Tokenizer(JSON.parse(await readFile(tokenizerPath, 'utf8')) as object, {});
      session = await InferenceSession.create(modelPath, {
        intraOpNumThreads: this.options.threads ?? Math.min(2, availableParallelism()),
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'all',
      });
    } catch (err) {
      throw new EmbedderUnavailableError(
        `cannot load embedding model ${this.model} (model ${modelPath}, tokenizer ${tokenizerPath}): ${(err as Error).message}`,
        { cause: err },
      );
    }
    const loaded = { session, tokenizer, hasTokenTypeIds: session.inputNames.includes('token_type_ids') };
    try {
      for (const name of ['input_ids', 'attention_mask']) {
        if (!session.inputNames.includes(name))
          throw new Error(`model ${modelPath} has no input ${name} (inputs: ${session.inputNames.join(', ')})`);
      }
      if (!session.outputNames.includes(OUTPUT))
        throw new Error(`model ${modelPath} has no output ${OUTPUT} (outputs: ${session.outputNames.join(', ')})`);
      // A warm-up run: the first run is slow, and it proves the model answers with the configured width.
      await this.run(loaded, ['warm-up']);
    } catch (err) {
      await session.release();
      throw err;
    }
    return loaded;
  }

  private async run({ session, tokenizer, hasTokenTypeIds }: Loaded, texts: string[]): Promise<Float32Array[]> {
    const encoded = texts.map((text) => this.tokenize(tokenizer, text));
    const batch = texts.length;
    const seqLen = Math.max(...encoded.map((ids) => ids.length));
    // Zero-filled: shorter texts are padded with id 0 ([PAD]) and mask 0; token type 0 everywhere.
    const inputIds = new BigInt64Array(batch * seqLen);
    const mask = new BigInt64Array(batch * seqLen);
    encoded.forEach((ids, b) => {
      ids.forEach((id, t) => {
        inputIds[b * seqLen + t] = BigInt(id);
        mask[b * seqLen + t] = 1n;
      });
    });
    const shape = [batch, seqLen];
    const feeds: Record<string, Tensor> = {
      input_ids: new Tensor('int64', inputIds, shape),
      attention_mask: new Tensor('int64', mask, shape),
    };
    if (hasTokenTypeIds) feeds['token_type_ids'] = new Tensor('int64', new BigInt64Array(batch * seqLen), shape);

    const hidden = (await session.run(feeds))[OUTPUT];
    const width = hidden?.dims[2];
    if (hidden === undefined || hidden.type !== 'float32' || width !== this.dims) {
      throw new Error(
        `model ${this.model} returned ${OUTPUT} of shape [${hidden?.dims.join(', ')}] (${hidden?.type}); configured dims ${this.dims}`,
      );
    }
    const data = hidden.data as Float32Array;
    // Mean pooling over the real tokens of each text (the first ids.length positions of its row).
    return encoded.map((ids, b) => {
      const sum = new Float32Array(width);
      for (let t = 0; t < ids.length; t++) {
        const row = (b * seqLen + t) * width;
        for (let d = 0; d < width; d++) sum[d] = sum[d]! + data[row + d]!;
      }
      for (let d = 0; d < width; d++) sum[d] = sum[d]! / ids.length;
      return l2Normalize(sum);
    });
  }

  /** Token ids with [CLS]/[SEP], at most maxTokens of them. */
  private tokenize(tokenizer: Tokenizer, text: string): number[] {
    // Tokenizing a huge text only to drop most of it blocks the event loop (~50 ms per 100 kB), so
    // tokenize the first maxTokens words. Cut at ASCII whitespace, where BERT pre-tokenization always
    // splits, so those tokens are exactly the first tokens of the whole text; if the head happens to
    // yield too few (possible only with odd characters), tokenize the whole text after all.
    const head = firstWords(text, this.maxTokens);
    let ids = tokenizer.encode(head).ids;
    if (head !== text && ids.length < this.maxTokens) ids = tokenizer.encode(text).ids;
    if (ids.length <= this.maxTokens) return ids;
    // Keep the closing special token ([SEP]) that the post-processor appended, as Hugging Face truncation does.
    return [...ids.slice(0, this.maxTokens - 1), ids[ids.length - 1]!];
  }
}

/** `text` up to (not including) the whitespace after its `count`-th word; the whole text if it has fewer words. */
function firstWords(text: string, count: number): string {
  const gaps = /[ \t\n\r]+/g;
  let words = 0;
  for (let gap = gaps.exec(text); gap !== null; gap = gaps.exec(text)) {
    if (gap.index > 0 && ++words >= count) return text.slice(0, gap.index);
  }
  return text;
}
