/**
 * One ONNX Runtime session with its tokenizer, run in a worker thread by OnnxEmbedder (one worker
 * per session). onnxruntime-node runs inference synchronously on the thread that calls it: in a
 * worker, the service's event loop stays free for gRPC while texts are embedded, and two sessions
 * of one intra-op thread each use two cores with far less CPU per text than one session of two
 * threads (whose threads spin-wait between the small runs of one short text; see
 * docs/performance.md, "Why ingest sits around 0.8× the bare session").
 *
 * Started as a worker (workerData.kind === WORKER_KIND), it loads, answers `ready` or
 * `load-error`, then answers each `run` message with the texts' vectors, flat, in one transferred
 * buffer.
 */
import { readFileSync } from 'node:fs';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { Tokenizer } from '@huggingface/tokenizers';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { l2Normalize } from './embedder';

export const WORKER_KIND = 'kb-onnx-embedder';

export interface SessionSettings {
  modelPath: string;
  tokenizerPath: string;
  modelName: string;
  dims: number;
  maxTokens: number;
  /** Intra-op threads of the session. */
  threads: number;
}

/** Messages from the embedder to a worker. */
export interface RunRequest {
  id: number;
  texts: string[];
}

/** Messages from a worker to the embedder. */
export type WorkerMessage =
  | { type: 'ready' }
  /** `unavailable`: the model or tokenizer could not be loaded (as opposed to a model that loads but does not fit). */
  | { type: 'load-error'; message: string; unavailable: boolean }
  | { type: 'result'; id: number; vectors: Float32Array }
  | { type: 'error'; id: number; message: string };

const OUTPUT = 'last_hidden_state';

/** The session, the tokenizer and what a run needs: tokenizing, one inference, mean pooling, L2 normalisation. */
export class SessionRunner {
  private constructor(
    private readonly settings: SessionSettings,
    private readonly session: InferenceSession,
    private readonly tokenizer: Tokenizer,
    private readonly hasTokenTypeIds: boolean,
  ) {}

  /** Loads and checks the model (its inputs and outputs, a warm-up run of the configured width). */
  static async load(settings: SessionSettings): Promise<SessionRunner> {
    const { modelPath, tokenizerPath } = settings;
    let tokenizer: Tokenizer;
    let session: InferenceSession;
    try {
      // The library ignores the file's own "truncation" block (LangChain4j's copy says 128); we cut at maxTokens ourselves.
      tokenizer = new Tokenizer(JSON.parse(readFileSync(tokenizerPath, 'utf8')) as object, {});
      session = await InferenceSession.create(modelPath, {
        intraOpNumThreads: settings.threads,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'all',
        // With one intra-op thread there is no pool to spin; with more, their spin-waiting between
        // runs of one short text costs more CPU than the runs on two shared cores.
        extra: { session: { intra_op: { allow_spinning: '0' } } },
      });
    } catch (err) {
      throw new LoadError((err as Error).message, true);
    }
    const runner = new SessionRunner(settings, session, tokenizer, session.inputNames.includes('token_type_ids'));
    try {
      for (const name of ['input_ids', 'attention_mask']) {
        if (!session.inputNames.includes(name))
          throw new Error(`model ${modelPath} has no input ${name} (inputs: ${session.inputNames.join(', ')})`);
      }
      if (!session.outputNames.includes(OUTPUT))
        throw new Error(`model ${modelPath} has no output ${OUTPUT} (outputs: ${session.outputNames.join(', ')})`);
      // A warm-up run: the first run is slow, and it proves the model answers with the configured width.
      await runner.run(['warm-up']);
    } catch (err) {
      await session.release();
      throw new LoadError((err as Error).message, false);
    }
    return runner;
  }

  /** The texts' vectors, `dims` floats each, one after the other (one inference for all of them, padded). */
  async run(texts: string[]): Promise<Float32Array> {
    const { dims } = this.settings;
    const encoded = texts.map((text) => this.tokenize(text));
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
    if (this.hasTokenTypeIds) feeds['token_type_ids'] = new Tensor('int64', new BigInt64Array(batch * seqLen), shape);

    const hidden = (await this.session.run(feeds))[OUTPUT];
    const width = hidden?.dims[2];
    if (hidden === undefined || hidden.type !== 'float32' || width !== dims) {
      throw new Error(
        `model ${this.settings.modelName} returned ${OUTPUT} of shape [${hidden?.dims.join(', ')}] ` +
          `(${hidden?.type}); configured dims ${dims}`,
      );
    }
    const data = hidden.data as Float32Array;
    const out = new Float32Array(batch * dims);
    // Mean pooling over the real tokens of each text (the first ids.length positions of its row).
    encoded.forEach((ids, b) => {
      const sum = out.subarray(b * dims, (b + 1) * dims);
      for (let t = 0; t < ids.length; t++) {
        const row = (b * seqLen + t) * width;
        for (let d = 0; d < width; d++) sum[d] = sum[d]! + data[row + d]!;
      }
      for (let d = 0; d < width; d++) sum[d] = sum[d]! / ids.length;
      l2Normalize(sum);
    });
    return out;
  }

  release(): Promise<void> {
    return this.session.release();
  }

  /** Token ids with [CLS]/[SEP], at most maxTokens of them. */
  private tokenize(text: string): number[] {
    const { maxTokens } = this.settings;
    // Tokenizing a huge text only to drop most of it costs ~50 ms per 100 kB, so tokenize the
    // first maxTokens words. Cut at ASCII whitespace, where BERT pre-tokenization always splits,
    // so those tokens are exactly the first tokens of the whole text; if the head happens to
    // yield too few (possible only with odd characters), tokenize the whole text after all.
    const head = firstWords(text, maxTokens);
    let ids = this.tokenizer.encode(head).ids;
    if (head !== text && ids.length < maxTokens) ids = this.tokenizer.encode(text).ids;
    if (ids.length <= maxTokens) return ids;
    // Keep the closing special token ([SEP]) that the post-processor appended, as Hugging Face truncation does.
    return [...ids.slice(0, maxTokens - 1), ids[ids.length - 1]!];
  }
}

/** A load that failed; `unavailable` when the files could not be loaded at all. */
export class LoadError extends Error {
  constructor(
    message: string,
    readonly unavailable: boolean,
  ) {
    super(message);
  }
}

/** `text` up to (not including) the whitespace after its `count`-th word; the whole text if it has fewer words. */
export function firstWords(text: string, count: number): string {
  const gaps = /[ \t\n\r]+/g;
  let words = 0;
  for (let gap = gaps.exec(text); gap !== null; gap = gaps.exec(text)) {
    if (gap.index > 0 && ++words >= count) return text.slice(0, gap.index);
  }
  return text;
}

/** The worker's side: load, then one run per message, in order. */
async function serve(settings: SessionSettings): Promise<void> {
  const port = parentPort!;
  const post = (message: WorkerMessage, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
  let runner: SessionRunner;
  try {
    runner = await SessionRunner.load(settings);
  } catch (err) {
    post({ type: 'load-error', message: (err as Error).message, unavailable: (err as LoadError).unavailable === true });
    return;
  }
  // Runs one at a time: a message that arrives during a run waits for it (the session is not re-entered).
  let queue = Promise.resolve();
  port.on('message', (req: RunRequest) => {
    queue = queue.then(async () => {
      try {
        const vectors = await runner.run(req.texts);
        post({ type: 'result', id: req.id, vectors }, [vectors.buffer as ArrayBuffer]);
      } catch (err) {
        post({ type: 'error', id: req.id, message: (err as Error).message });
      }
    });
  });
  post({ type: 'ready' });
}

const data = workerData as { kind?: string; settings?: SessionSettings } | null;
if (!isMainThread && data?.kind === WORKER_KIND && data.settings) void serve(data.settings);
