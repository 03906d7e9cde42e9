import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { assertEmbeddable, type Embedder, EmbedderUnavailableError, requirePositiveInt } from './embedder';
import { RunQueue } from './run-queue';
import { WORKER_KIND, type RunRequest, type SessionSettings, type WorkerMessage } from './onnx-worker';

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
  /**
   * Sessions, each in a worker thread of its own, running texts in parallel; default min(2, cores).
   * A vector does not depend on which session computed it (same model, same settings, bit for bit).
   */
  sessions?: number;
  /**
   * Intra-op threads per session; default 1. On two cores shared with Elasticsearch, two sessions
   * of one thread embed ~1.5x the texts per CPU-second of one session of two threads (measured:
   * docs/performance.md, "Why ingest sits around 0.8× the bare session").
   */
  threads?: number;
}

/** A worker thread holding one session; `busy` while it has a run. */
interface Session {
  worker: Worker;
  busy: boolean;
  /** The run in flight: how to answer it. */
  pending: { id: number; resolve(vectors: Float32Array): void; reject(err: unknown): void } | undefined;
}

interface Loaded {
  sessions: Session[];
}

/**
 * The worker's script: beside this file once built. Run from the TypeScript sources (ts-jest), the
 * built copy of the package is used (a worker cannot load TypeScript); `npm run build` first.
 */
function workerScript(): string {
  const here = join(__dirname, 'onnx-worker.js');
  if (existsSync(here)) return here;
  const built = join(__dirname, '..', '..', 'dist', 'embedder', 'onnx-worker.js');
  if (existsSync(built)) return built;
  throw new Error(`no onnx-worker.js beside ${__dirname} nor in ${built} (build the similarity package)`);
}

/**
 * Local sentence embeddings: tokenizer + ONNX Runtime on the CPU, mean pooling over the attention
 * mask, L2 normalisation (what sentence-transformers does for all-MiniLM-L6-v2).
 *
 * Runs happen in worker threads, one session each (onnxruntime-node runs inference synchronously
 * on the calling thread), so the event loop stays free for gRPC traffic and health checks while
 * texts are embedded. Runs are short (one text each by default), and each idle session takes the
 * next run of the call with the fewest texts left to start.
 */
export class OnnxEmbedder implements Embedder {
  readonly model: string;
  readonly dims: number;
  private readonly options: OnnxEmbedderOptions;
  private readonly maxTokens: number;
  private readonly batchSize: number;
  private readonly sessionCount: number;
  private readonly threads: number;
  private loading: Promise<Loaded> | undefined;
  private readonly queue: RunQueue;
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;
  private nextRunId = 1;

  constructor(options: OnnxEmbedderOptions) {
    this.options = options;
    this.model = options.modelName;
    this.dims = requirePositiveInt('dims', options.dims);
    this.maxTokens = requirePositiveInt('maxTokens', options.maxTokens ?? 256);
    if (this.maxTokens < 2) throw new RangeError('maxTokens must leave room for [CLS] and [SEP]');
    this.batchSize = requirePositiveInt('batchSize', options.batchSize ?? 1);
    this.sessionCount = requirePositiveInt('sessions', options.sessions ?? Math.min(2, availableParallelism()));
    this.threads = requirePositiveInt('threads', options.threads ?? 1);
    this.queue = new RunQueue(this.batchSize);
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
    await Promise.all((loaded?.sessions ?? []).map((s) => s.worker.terminate()));
  }

  private async embedAll(texts: string[]): Promise<Float32Array[]> {
    const loaded = await this.load();
    const answer = this.queue.add(texts);
    this.dispatch(loaded);
    return answer;
  }

  /** Gives each idle session the queue's next run (see RunQueue.next for the order). */
  private dispatch(loaded: Loaded): void {
    for (const session of loaded.sessions) {
      if (session.busy) continue;
      const run = this.queue.next();
      if (!run) return;
      session.busy = true;
      this.runOn(session, run.texts).then(
        (flat) => {
          session.busy = false;
          const vectors = run.texts.map((_, k) => flat.subarray(k * this.dims, (k + 1) * this.dims));
          this.queue.done(run, vectors);
          this.dispatch(loaded);
        },
        (err: unknown) => {
          session.busy = false;
          this.queue.failed(run, err);
          this.dispatch(loaded); // (nothing, if the sessions were dropped)
        },
      );
    }
  }

  private runOn(session: Session, texts: string[]): Promise<Float32Array> {
    return new Promise((resolve, reject) => {
      const id = this.nextRunId++;
      session.pending = { id, resolve, reject };
      session.worker.ref(); // an idle worker does not keep the process alive; one with a run does
      session.worker.postMessage({ id, texts } satisfies RunRequest);
    });
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
    const settings: SessionSettings = {
      modelPath,
      tokenizerPath,
      modelName: this.model,
      dims: this.dims,
      maxTokens: this.maxTokens,
      threads: this.threads,
    };
    const started = Array.from({ length: this.sessionCount }, () => this.startSession(settings));
    const outcomes = await Promise.allSettled(started.map((s) => s.ready));
    const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failure) {
      await Promise.all(started.map((s) => s.session.worker.terminate()));
      throw failure.reason;
    }
    const loaded: Loaded = { sessions: started.map((s) => s.session) };
    for (const session of loaded.sessions) this.watch(loaded, session);
    return loaded;
  }

  /** A worker loading one session; `ready` settles once it answered (or died). */
  private startSession(settings: SessionSettings): { session: Session; ready: Promise<void> } {
    const worker = new Worker(workerScript(), { workerData: { kind: WORKER_KIND, settings } });
    const session: Session = { worker, busy: false, pending: undefined };
    const ready = new Promise<void>((resolve, reject) => {
      const fail = (message: string, unavailable: boolean, cause?: unknown) =>
        reject(
          unavailable
            ? new EmbedderUnavailableError(
                `cannot load embedding model ${this.model} (model ${settings.modelPath}, tokenizer ${settings.tokenizerPath}): ${message}`,
                { cause },
              )
            : new Error(message),
        );
      // The error and exit listeners stay: once this settled they do nothing, and a worker's
      // 'error' without a listener would throw in this thread.
      worker.once('message', (msg: WorkerMessage) => {
        if (msg.type === 'ready') resolve();
        else if (msg.type === 'load-error') fail(msg.message, msg.unavailable);
        else fail(`unexpected first message from the embedding worker: ${msg.type}`, true);
      });
      worker.once('error', (err: Error) => fail(err.message, true, err));
      worker.once('exit', (code: number) => fail(`the embedding worker exited with code ${code} while loading`, true));
    });
    return { session, ready };
  }

  /** Answers a session's runs; if its worker dies, every session is dropped and the next call loads again. */
  private watch(loaded: Loaded, session: Session): void {
    const { worker } = session;
    worker.unref();
    worker.on('message', (msg: WorkerMessage) => {
      const pending = session.pending;
      if (!pending || (msg.type !== 'result' && msg.type !== 'error') || msg.id !== pending.id) return;
      session.pending = undefined;
      worker.unref();
      if (msg.type === 'result') pending.resolve(msg.vectors);
      else pending.reject(new Error(msg.message));
    });
    const died = (reason: string) => {
      if (this.loading === undefined || !loaded.sessions.includes(session)) return;
      const error = new EmbedderUnavailableError(`embedder ${this.model}: ${reason}`);
      // Forget these sessions: the next call starts new ones.
      const all = loaded.sessions.splice(0);
      this.loading = undefined;
      for (const s of all) {
        s.pending?.reject(error);
        s.pending = undefined;
        if (s !== session) void s.worker.terminate();
      }
      // Calls with texts not yet started have no session left to run them.
      this.queue.failAll(error);
    };
    worker.on('error', (err) => died(`an embedding worker failed: ${err.message}`));
    worker.on('exit', (code) => died(`an embedding worker exited (code ${code})`));
  }
}
